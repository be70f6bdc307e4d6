#include "stepdoctor/importers/chrome/chrome_flows.h"

#include <algorithm>

namespace stepdoctor::chrome {

size_t BoundNear(const std::vector<int64_t>& st, int64_t ts, bool upper, size_t hint) {
  auto past = [&](size_t i) { return upper ? st[i] > ts : st[i] >= ts; };
  const size_t n = st.size();
  hint = std::min(hint, n);
  size_t lo, hi;  // the answer lies in [lo, hi]
  if (hint < n && !past(hint)) {
    lo = hint + 1;  // the answer is past the hint: gallop forwards
    hi = lo;
    for (size_t step = 1; hi < n && !past(hi); step *= 2) {
      lo = hi + 1;
      hi = std::min(n, hi + step);
    }
  } else {
    hi = hint;  // past(hint), or hint == n: gallop backwards
    lo = hi;
    for (size_t step = 1; lo > 0 && past(lo - 1); step *= 2) {
      hi = lo - 1;
      lo -= std::min(step, lo);
    }
  }
  auto first = st.begin() + std::ptrdiff_t(lo), last = st.begin() + std::ptrdiff_t(hi);
  return size_t((upper ? std::upper_bound(first, last, ts) : std::lower_bound(first, last, ts)) - st.begin());
}

void BindFlows(Trace& trace, const std::vector<Flow>& flows) {
  std::vector<size_t> hint(trace.timelines.size(), 0);  // per timeline, the last answer
  for (const Flow& f : flows) {
    Timeline& t = trace.timeline(f.timeline);
    const auto& st = t.ev.start_ns;
    // bind_enclosing: the first event starting after ts; else the first starting at or after.
    size_t at = BoundNear(st, f.ts, f.bind_enclosing, hint[f.timeline.v]);
    hint[f.timeline.v] = at;
    int64_t target = -1;
    if (f.bind_enclosing) {
      // The latest-starting event at or before ts that still covers ts.
      for (size_t j = at; j > 0;) {
        --j;
        if (st[j] + t.ev.dur_ns[j] >= f.ts) {
          target = int64_t(j);
          break;
        }
        if (f.ts - st[j] > 10'000'000) break;  // stop looking 10 ms back
      }
    } else if (at != st.size()) {
      target = int64_t(at);
    }
    if (target >= 0 && t.ev.corr[size_t(target)] == 0) t.ev.corr[size_t(target)] = f.id;
  }
}

}  // namespace stepdoctor::chrome
