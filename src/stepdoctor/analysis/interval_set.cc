#include "stepdoctor/analysis/interval_set.h"

#include <algorithm>

namespace stepdoctor {

IntervalSet MakeIntervalSet(std::vector<Interval> raw) {
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(raw.begin(), raw.end(), by_start)) std::sort(raw.begin(), raw.end(), by_start);
  IntervalSet out;
  out.reserve(raw.size() / 2 + 1);
  for (const Interval& iv : raw) {
    if (iv.end <= iv.start) continue;
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

int64_t TotalLength(const IntervalSet& s) {
  int64_t n = 0;
  for (const auto& iv : s) n += iv.end - iv.start;
  return n;
}

IntervalSet Union(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const Interval& next = (j >= b.size() || (i < a.size() && a[i].start <= b[j].start)) ? a[i++] : b[j++];
    if (!out.empty() && next.start <= out.back().end) out.back().end = std::max(out.back().end, next.end);
    else out.push_back(next);
  }
  return out;
}

IntervalSet Intersect(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].start, b[j].start), hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

IntervalSet Subtract(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  size_t j = 0;
  for (Interval cur : a) {
    while (j < b.size() && b[j].end <= cur.start) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < cur.end) {
      if (b[k].start > cur.start) out.push_back({cur.start, b[k].start});
      cur.start = std::max(cur.start, b[k].end);
      if (cur.start >= cur.end) break;
      ++k;
    }
    if (cur.start < cur.end) out.push_back(cur);
  }
  return out;
}

int64_t LengthWithin(const IntervalSet& s, int64_t lo, int64_t hi) {
  auto it = std::lower_bound(s.begin(), s.end(), lo, [](const Interval& iv, int64_t v) { return iv.end <= v; });
  int64_t n = 0;
  for (; it != s.end() && it->start < hi; ++it) n += std::min(hi, it->end) - std::max(lo, it->start);
  return n;
}

}  // namespace stepdoctor
