// Sorted, disjoint [start, end) intervals in ns, and the set operations the breakdowns need.
// All functions are linear in their inputs.
#pragma once

#include <cstdint>
#include <vector>

namespace stepdoctor {

struct Interval {
  int64_t start = 0, end = 0;
};
using IntervalSet = std::vector<Interval>;  // sorted by start, disjoint, non-empty intervals

// Sorts and merges arbitrary intervals (empty ones dropped).
IntervalSet MakeIntervalSet(std::vector<Interval> raw);
int64_t TotalLength(const IntervalSet& s);
IntervalSet Union(const IntervalSet& a, const IntervalSet& b);
IntervalSet Intersect(const IntervalSet& a, const IntervalSet& b);
IntervalSet Subtract(const IntervalSet& a, const IntervalSet& b);  // a minus b
// Length of `s` inside [lo, hi).
int64_t LengthWithin(const IntervalSet& s, int64_t lo, int64_t hi);

}  // namespace stepdoctor
