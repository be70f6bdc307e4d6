// What the profiler itself added to the host's time: PyTorch's with_stack=True records every
// Python call as a python_function event, and profile_memory=True each allocation and free as a
// [memory] event. Both run on the host thread inside every operator, so host-side figures read
// higher than the job runs without them.
#pragma once

#include <cstdint>
#include <string>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct ProfilerOverhead {
  int64_t python_calls = 0;   // python_function events in the window
  int64_t memory_events = 0;  // [memory] allocation/free events in the window
  // Python stacks at kProfilerOverheadEvents or more per step: the Python tracer runs on every
  // Python call, so the host's own time is inflated (a host-bound verdict is held less firmly).
  bool stacks_inflate_host = false;
  // "the profiler recorded Python stacks (with_stack=True: 758 Python calls) and memory
  // (profile_memory=True: 312 events): ..."; empty where neither reaches kProfilerOverheadEvents
  // per step.
  std::string note;
};

// REQUIRED: trace finalized, steps >= 1. Over `worker`'s host timelines within [lo_ns, hi_ns).
ProfilerOverhead TraceToProfilerOverhead(const Trace& trace, WorkerId worker, int64_t lo_ns, int64_t hi_ns, int steps);

}  // namespace stepdoctor
