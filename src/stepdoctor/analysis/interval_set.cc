#include "stepdoctor/analysis/interval_set.h"

#include <algorithm>

namespace stepdoctor {
namespace {

// Merges the run [b, e), sorted by start, into disjoint non-empty intervals written from `out`
// on; `out` may be `b` (each write lands at or before the interval just read). Returns the end.
Interval* ReduceSortedRun(const Interval* b, const Interval* e, Interval* out) {
  Interval* o = out;
  for (; b != e; ++b) {
    const Interval iv = *b;
    if (iv.end <= iv.start) continue;
    if (o != out && iv.start <= o[-1].end) o[-1].end = std::max(o[-1].end, iv.end);
    else *o++ = iv;
  }
  return o;
}

// The union of two sorted disjoint runs, written from `out` (which overlaps neither).
Interval* UnionRuns(const Interval* a, const Interval* ae, const Interval* b, const Interval* be, Interval* out) {
  Interval* o = out;
  while (a != ae || b != be) {
    const Interval& next = (b == be || (a != ae && a->start <= b->start)) ? *a++ : *b++;
    if (o != out && next.start <= o[-1].end) o[-1].end = std::max(o[-1].end, next.end);
    else *o++ = next;
  }
  return o;
}

}  // namespace

// The set is the same whatever the order of `raw`, so the work can follow its shape: intervals
// gathered timeline by timeline arrive as a few runs each sorted by start. Each run is merged
// where it lies and the merged runs are joined pairwise, instead of sorting the whole vector.
IntervalSet MakeIntervalSet(std::vector<Interval> raw) {
  std::vector<size_t> runs{0};  // where each run sorted by start begins
  for (size_t i = 1; i < raw.size(); ++i)
    if (raw[i].start < raw[i - 1].start) runs.push_back(i);
  // Many short runs (an unordered input): sorting is cheaper than joining them.
  constexpr size_t kMinRunLength = 16;
  if (runs.size() > 1 && runs.size() * kMinRunLength > raw.size()) {
    std::sort(raw.begin(), raw.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    runs.resize(1);
  }
  runs.push_back(raw.size());
  // Merge each run in place, packed to the front.
  Interval* base = raw.data();
  Interval* w = base;
  std::vector<size_t> bounds{0};
  for (size_t r = 0; r + 1 < runs.size(); ++r) {
    w = ReduceSortedRun(base + runs[r], base + runs[r + 1], w);
    bounds.push_back(size_t(w - base));
  }
  if (bounds.size() == 2) {
    // A copy of exactly the set's size: sets are kept while later ones are built, and the raw
    // input is often several times larger.
    return IntervalSet(base, base + bounds[1]);
  }
  // Join neighbouring runs until one is left.
  std::vector<Interval> other(bounds.back());
  Interval* src = base;
  Interval* dst = other.data();
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    Interval* o = dst;
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      if (r + 2 < bounds.size())
        o = UnionRuns(src + bounds[r], src + bounds[r + 1], src + bounds[r + 1], src + bounds[r + 2], o);
      else
        o = std::copy(src + bounds[r], src + bounds[r + 1], o);
      next.push_back(size_t(o - dst));
    }
    bounds.swap(next);
    std::swap(src, dst);
  }
  return IntervalSet(src, src + bounds[1]);
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
