// IntervalSet against a brute-force model: each set is also a bitmap of nanoseconds 0..kSpan,
// and every operation must agree with the bitwise one, on hand-picked edges and random sets.
#include "stepdoctor/analysis/interval_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <random>

namespace stepdoctor {
namespace {

constexpr int kSpan = 128;  // a small time axis: the bitmap model stays exact
using Bits = std::bitset<kSpan>;

Bits ToBits(const IntervalSet& s) {
  Bits b;
  for (const Interval& iv : s)
    for (int64_t t = iv.start; t < iv.end; ++t) b.set(size_t(t));
  return b;
}

// Sorted, disjoint, non-empty, and not touching (touching intervals are merged).
void ExpectCanonical(const IntervalSet& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_LT(s[i].start, s[i].end);
    if (i) {
      EXPECT_LT(s[i - 1].end, s[i].start);
    }
  }
}

IntervalSet Random(std::mt19937& rng) {
  std::uniform_int_distribution<int> pos(0, kSpan), count(0, 6);
  std::vector<Interval> raw;
  for (int n = count(rng); n > 0; --n) {
    int a = pos(rng), b = pos(rng);
    raw.push_back({std::min(a, b), std::max(a, b)});  // may be empty: dropped
  }
  return MakeIntervalSet(raw);
}

TEST(IntervalSet, MakeSortsMergesAndDropsEmpty) {
  IntervalSet s = MakeIntervalSet({{50, 60}, {0, 10}, {10, 20}, {5, 8}, {30, 30}, {40, 35}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].start, 0);
  EXPECT_EQ(s[0].end, 20);  // [0,10) and [10,20) touch: one interval
  EXPECT_EQ(s[1].start, 50);
  EXPECT_EQ(s[1].end, 60);
  EXPECT_EQ(TotalLength(s), 30);
  EXPECT_TRUE(MakeIntervalSet({}).empty());
}

TEST(IntervalSet, EdgesOfEachOperation) {
  IntervalSet a = MakeIntervalSet({{0, 10}, {20, 30}});
  IntervalSet b = MakeIntervalSet({{10, 20}});
  EXPECT_EQ(TotalLength(Union(a, b)), 30);
  EXPECT_EQ(Union(a, b).size(), 1u);       // touching at both ends: one interval
  EXPECT_TRUE(Intersect(a, b).empty());    // touching is not overlapping
  EXPECT_EQ(TotalLength(Subtract(a, b)), 20);
  EXPECT_EQ(TotalLength(Subtract(a, a)), 0);
  EXPECT_EQ(TotalLength(Subtract(a, {})), 20);
  EXPECT_EQ(LengthWithin(a, 5, 25), 10);   // 5 from each
  EXPECT_EQ(LengthWithin(a, 10, 20), 0);
  EXPECT_EQ(LengthWithin(a, 30, 40), 0);
  EXPECT_EQ(LengthWithin({}, 0, 100), 0);
}

TEST(IntervalSet, AgreesWithABitmapOnRandomSets) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    IntervalSet a = Random(rng), b = Random(rng);
    Bits ba = ToBits(a), bb = ToBits(b);
    ExpectCanonical(a);
    EXPECT_EQ(TotalLength(a), int64_t(ba.count()));
    IntervalSet u = Union(a, b), i = Intersect(a, b), d = Subtract(a, b);
    ExpectCanonical(u);
    ExpectCanonical(d);
    for (size_t k = 1; k < i.size(); ++k) EXPECT_LE(i[k - 1].end, i[k].start);  // sorted, disjoint
    EXPECT_EQ(ToBits(u), ba | bb);
    EXPECT_EQ(ToBits(i), ba & bb);
    EXPECT_EQ(ToBits(d), ba & ~bb);
    std::uniform_int_distribution<int> pos(0, kSpan);
    int lo = pos(rng), hi = pos(rng);
    if (lo > hi) std::swap(lo, hi);
    Bits window;
    for (int t = lo; t < hi; ++t) window.set(size_t(t));
    EXPECT_EQ(LengthWithin(a, lo, hi), int64_t((ba & window).count()));
    if (HasFailure()) break;
  }
}

// Intervals gathered timeline by timeline come as a few runs, each sorted by start: those are
// merged run by run and joined, not sorted. The set must be the same as from any other order.
TEST(IntervalSet, MakeFromSortedRunsAgreesWithABitmap) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pos(0, kSpan), len(0, 9), runs(1, 7), run_len(0, 40);
  for (int round = 0; round < 500; ++round) {
    std::vector<Interval> raw;
    Bits want;
    for (int r = runs(rng); r > 0; --r) {
      std::vector<Interval> run;
      for (int n = run_len(rng); n > 0; --n) {
        int a = pos(rng), b = std::min(kSpan, a + len(rng));
        run.push_back({a, b});  // may be empty: dropped
        for (int t = a; t < b; ++t) want.set(size_t(t));
      }
      std::sort(run.begin(), run.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
      raw.insert(raw.end(), run.begin(), run.end());
    }
    IntervalSet s = MakeIntervalSet(raw);
    ExpectCanonical(s);
    EXPECT_EQ(ToBits(s), want);
    std::shuffle(raw.begin(), raw.end(), rng);
    EXPECT_EQ(ToBits(MakeIntervalSet(raw)), want);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace stepdoctor
