// Trace + steps + which of them are slow -> what runs only in slow steps: the operators and
// ranges that some slow steps hold and no other step does (an optimizer update that runs every
// k micro-batches, an evaluation pass under its own range, a checkpoint's state_dict copies).
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct SlowOnlyEvent {
  std::string name;
  double ms_per_step = 0;     // its time in each step that holds it (mean)
  int64_t count = 0;          // occurrences
  std::vector<size_t> steps;  // the slow steps holding it (indices into the steps), in order
  // An optimizer applying gradients (PyTorch's Optimizer.step#, TensorFlow's ResourceApply*
  // ops): the other steps accumulate gradients without applying them.
  bool optimizer_update = false;
};

// Names (operators, annotations, input waits on the worker's host threads; step annotations
// left out) that slow steps hold and no other step does, those held by more slow steps first,
// then the longer. Empty when `slow` is empty or holds every step.
std::vector<SlowOnlyEvent> TraceToSlowOnlyEvents(const Trace& trace, WorkerId worker, const StepWindows& windows,
                                                 const std::vector<size_t>& slow);

}  // namespace stepdoctor
