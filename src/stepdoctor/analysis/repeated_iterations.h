// Iterations from a repeated sequence of work where the trace names none: a loop the profiler
// recorded without step markers (the autograd profiler, `torch.profiler` without `schedule`, a
// tracer of device activity alone) runs the same operators, or the same copies and kernels, in
// the same order each time round. An iteration takes in new input: the sequence must start with
// work that brings it (a DataLoader fetch, a tensor made from nothing such as `aten::rand` or
// `aten::tensor`, a host-to-device copy), which the repeated layers of one forward pass do not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// At least this many repeats of the sequence make a loop (two are a pair, not a pattern).
inline constexpr int kMinRepeatedIterations = 3;

struct RepeatedIterations {
  std::vector<StepWindow> steps;  // each repeat from its start to the next one's; the last left out
  std::string source;             // what the sequence is, for the report
  int repeats = 0;
};

// The host thread's outermost operators first, then (where no host thread has any) the
// worker's device activity in time order. Empty where no sequence repeats.
RepeatedIterations TraceToRepeatedIterations(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
