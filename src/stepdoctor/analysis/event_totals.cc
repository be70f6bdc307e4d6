#include "stepdoctor/analysis/event_totals.h"

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/analysis/interval_set.h"

#include <algorithm>
#include <unordered_map>

namespace stepdoctor {

std::vector<TopEvent> TotalsByName(const Trace& trace, TotalsScope scope, WorkerId worker) {
  struct Acc {
    int64_t ns = 0;
    int64_t count = 0;
  };
  std::unordered_map<StringId, Acc> acc;
  int64_t total = 0, lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& t : trace.timelines) {
    if (worker.valid() && t.worker != worker) continue;
    bool device = t.kind == TimelineKind::kDeviceStream;
    bool host = t.kind == TimelineKind::kHostThread;
    if (scope == TotalsScope::kDeviceKernels ? !device : !host) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      EventKind k = t.ev.kind[i];
      bool keep = scope == TotalsScope::kDeviceKernels ? IsDeviceActivity(k)
                                                       : k == EventKind::kFrameworkOp || k == EventKind::kFrameworkOverhead;
      if (!keep) continue;
      auto& a = acc[t.ev.name[i]];
      // Saturating: overlapping events (nested ops, many streams) may sum past int64.
      a.ns = SaturatingAdd(a.ns, t.ev.dur_ns[i]);
      ++a.count;
      total = SaturatingAdd(total, t.ev.dur_ns[i]);
      lo = std::min(lo, t.ev.start_ns[i]);
      hi = std::max(hi, t.end_ns(uint32_t(i)));
    }
  }
  // Host operators nest, so their summed time means nothing: each is a share of the window the
  // worker's host and device activity spans (a host that enqueues its work, then waits for it in
  // a call no operator covers, ran its operators in a small part of that).
  if (scope == TotalsScope::kHostOps) {
    for (const auto& t : trace.timelines) {
      if ((worker.valid() && t.worker != worker) || t.ev.size() == 0) continue;
      if (t.kind != TimelineKind::kHostThread && t.kind != TimelineKind::kDeviceStream) continue;
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.kind[i] != EventKind::kStepMarker) {
          lo = std::min(lo, t.ev.start_ns[i]);
          hi = std::max(hi, t.end_ns(uint32_t(i)));
        }
    }
    total = hi > lo ? hi - lo : 0;
  }
  std::vector<TopEvent> out;
  out.reserve(acc.size());
  for (const auto& [name, a] : acc) {
    TopEvent e;
    e.name = std::string(trace.str(name));
    e.total_ms = a.ns / 1e6;
    e.count = a.count;
    e.share_pct = total > 0 ? 100.0 * a.ns / total : 0;
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const TopEvent& a, const TopEvent& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.name < b.name;
  });
  // Calls of one operator run at once on several threads (a TF executor's pool), and nest: the
  // longest operators' shares are of the span in which a call of theirs runs, their calls'
  // union, not their summed time (which can pass the span).
  if (scope == TotalsScope::kHostOps && total > 0) {
    std::unordered_map<StringId, size_t> top;  // name -> index in out
    for (const auto& [name, a] : acc) {
      (void)a;
      const std::string_view n = trace.str(name);
      for (size_t k = 0; k < out.size() && k < kWallShareNames; ++k)
        if (out[k].name == n) top.emplace(name, k);
    }
    std::vector<std::vector<Interval>> raw(std::min(out.size(), kWallShareNames));
    for (const auto& t : trace.timelines) {
      if ((worker.valid() && t.worker != worker) || t.kind != TimelineKind::kHostThread) continue;
      for (size_t i = 0; i < t.ev.size(); ++i) {
        const EventKind k = t.ev.kind[i];
        if (k != EventKind::kFrameworkOp && k != EventKind::kFrameworkOverhead) continue;
        auto it = top.find(t.ev.name[i]);
        if (it != top.end()) raw[it->second].push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
      }
    }
    for (size_t k = 0; k < raw.size(); ++k)
      out[k].share_pct = 100.0 * double(TotalLength(MakeIntervalSet(std::move(raw[k])))) / double(total);
  }
  return out;
}

}  // namespace stepdoctor
