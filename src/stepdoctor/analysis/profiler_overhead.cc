#include "stepdoctor/analysis/profiler_overhead.h"

#include <fmt/format.h>

#include <vector>

#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor {

ProfilerOverhead TraceToProfilerOverhead(const Trace& trace, WorkerId worker, int64_t lo_ns, int64_t hi_ns, int steps) {
  ProfilerOverhead out;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.start_ns[i] < lo_ns || t.ev.start_ns[i] >= hi_ns) continue;
      out.python_calls += t.ev.kind[i] == EventKind::kPythonFunction;
      out.memory_events += t.ev.kind[i] == EventKind::kMemoryEvent;
    }
  }
  const int64_t n = steps > 0 ? steps : 1;
  out.stacks_inflate_host = out.python_calls >= kProfilerOverheadEvents * n;
  std::vector<std::string> what;
  if (out.stacks_inflate_host)
    what.push_back(fmt::format("Python stacks (with_stack=True: {} Python calls)", out.python_calls));
  if (out.memory_events >= kProfilerOverheadEvents * n)
    what.push_back(fmt::format("memory (profile_memory=True: {} allocator events, allocations and frees)", out.memory_events));
  if (what.empty()) return out;
  out.note = "the profiler recorded " + what[0] + (what.size() > 1 ? " and " + what[1] : "") +
             " in the window analysed: it does that on the host thread inside every operator, so host-side time reads higher than the job "
             "runs without it; profile again without them to confirm host-side figures";
  return out;
}

}  // namespace stepdoctor
