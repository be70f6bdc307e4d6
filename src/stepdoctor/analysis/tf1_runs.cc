#include "stepdoctor/analysis/tf1_runs.h"

#include <algorithm>

namespace stepdoctor {

std::vector<int64_t> Tf1RunStarts(const Trace& trace, WorkerId worker) {
  bool has_key = false, has_source = false;
  const StringId key = trace.strings.Find("name", &has_key);
  const StringId source = trace.strings.Find("_SOURCE", &has_source);
  if (!has_key || !has_source) return {};
  struct Span {
    int64_t start, end;
    bool source;
  };
  std::vector<Span> spans;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind == TimelineKind::kDerived) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      const Arg* a = t.ev.args_n[i] ? t.FindArg(i, key) : nullptr;
      spans.push_back({t.ev.start_ns[i], t.end_ns(i), a && a->type == ArgType::kString && a->s == source});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<int64_t> starts;
  int64_t reach = INT64_MIN;  // the latest end of the events that start before the current one
  bool op_since = true;       // an op other than _SOURCE started since the last run's start
  for (size_t i = 0; i < spans.size();) {
    // Events starting at one instant are judged against what started before it.
    size_t j = i;
    while (j < spans.size() && spans[j].start == spans[i].start) ++j;
    const int64_t at = spans[i].start;
    bool opens = false;
    for (size_t k = i; k < j; ++k) opens |= spans[k].source;
    if (opens && reach <= at && op_since) {
      starts.push_back(at);
      op_since = false;
    }
    for (size_t k = i; k < j; ++k) {
      reach = std::max(reach, spans[k].end);
      if (!spans[k].source) op_since = true;
    }
    i = j;
  }
  if (starts.size() < 2) starts.clear();
  return starts;
}

}  // namespace stepdoctor
