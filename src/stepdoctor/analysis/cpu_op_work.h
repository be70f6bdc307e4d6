// Host timeline -> where its operators do work of their own and where they only dispatch:
// the CPU-only step breakdown's split between device compute and host overhead.
//
// Each operator's own time (its span less its children's) comes in pieces between its
// children. A piece of kTinyOpNs or more is work (a GEMM inside aten::addmm, a convolution
// kernel); shorter pieces are dispatch (aten::linear around its aten::addmm, TorchScript's
// `forward` around the ops it interprets, a tiny elementwise op). So a wrapper is judged by what
// runs inside it, not by its length: a `forward` of a hundred 2-us ops is overhead, however long.
#pragma once

#include <cstdint>
#include <functional>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct CpuOpPieces {
  std::vector<Interval> work;      // own time in pieces of kTinyOpNs or more
  std::vector<Interval> dispatch;  // own time in shorter pieces
};

// Operators (kFrameworkOp) of one host timeline, step annotations left out (they bound a step,
// their content is what counts). User annotations are no operators: what runs between the
// operators inside one is the caller's code, host time (the step breakdown's gaps). `top_level(start, end)` is called for each
// operator not nested in another. REQUIRED: the trace is finalized (sorted, enclosing first).
CpuOpPieces TimelineToCpuOpPieces(const Timeline& t, StepAnnotationNames& is_step,
                                  const std::function<void(int64_t start, int64_t end)>& top_level);

}  // namespace stepdoctor
