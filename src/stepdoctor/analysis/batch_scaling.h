// Trace -> what a larger batch changes on the host: which work is per parameter (the optimizer's
// step, zeroing and accumulating gradients: its size is the model's, whatever the batch) and, in a
// CPU-only job, which part of each operator's own time grows with the items (what it computes)
// and which stays (its dispatch). The batch what-if (whatif.cc) scales the one and keeps the other.
#pragma once

#include <cstdint>
#include <string_view>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// An operator or range whose work is per parameter: PyTorch's `Optimizer.step#...` and
// `Optimizer.zero_grad#...` ranges, autograd's `AccumulateGrad`, TensorFlow's `Apply*` /
// `ResourceApply*` optimizer ops.
bool PerParameterName(std::string_view name);

// One eager operator call's fixed cost on a CPU, inside its own time (argument checks, the
// dispatcher, allocating its output). Fitted on examples/whatif/batch.json (2 cores, PyTorch
// 1.13): with 1.5 us, every batch x4 and x16 prediction of its two models lands within 12% of the
// measured step; 1 us over-predicts the tiny model at x16 (+30%), 3 us under-predicts it at x4
// (-23%): small operators grow less than linearly with their items.
inline constexpr int64_t kCpuDispatchNs = 1'500;

struct PerItemWork {
  IntervalSet per_param;   // host time inside per-parameter work
  IntervalSet cpu_scaled;  // CPU-only: the part of the operators' own time that grows with the batch
};

// `cpu_only`: also split the operators' own time (cpu_op_work.h) into what grows with the batch
// and the dispatch that does not: each piece of own time outside per-parameter work keeps
// kCpuDispatchNs fixed (all of it, when shorter) and the rest grows.
PerItemWork TraceToPerItemWork(const Trace& trace, WorkerId worker, bool cpu_only);

}  // namespace stepdoctor
