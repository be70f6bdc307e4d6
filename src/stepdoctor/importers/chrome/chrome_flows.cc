#include "stepdoctor/importers/chrome/chrome_flows.h"

#include <algorithm>

namespace stepdoctor::chrome {

void BindFlows(Trace& trace, const std::vector<Flow>& flows) {
  for (const Flow& f : flows) {
    Timeline& t = trace.timeline(f.timeline);
    const auto& st = t.ev.start_ns;
    auto it = std::upper_bound(st.begin(), st.end(), f.ts);  // first event starting after ts
    if (!f.bind_enclosing) it = std::lower_bound(st.begin(), st.end(), f.ts);
    int64_t target = -1;
    if (f.bind_enclosing) {
      // The latest-starting event at or before ts that still covers ts.
      for (auto j = it; j != st.begin();) {
        --j;
        size_t i = size_t(j - st.begin());
        if (st[i] + t.ev.dur_ns[i] >= f.ts) {
          target = int64_t(i);
          break;
        }
        if (f.ts - st[i] > 10'000'000) break;  // stop looking 10 ms back
      }
    } else if (it != st.end()) {
      target = int64_t(it - st.begin());
    }
    if (target >= 0 && t.ev.corr[size_t(target)] == 0) t.ev.corr[size_t(target)] = f.id;
  }
}

}  // namespace stepdoctor::chrome
