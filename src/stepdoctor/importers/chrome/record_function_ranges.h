// PyTorch's own record_function ranges in traces that file them with the operators. Kineto before
// PyTorch 1.10 gives every host range the category "Operator", and the autograd profiler's export
// gives none, so a user's `with record_function("model_inference"):` (or DDP's forward range, the
// optimizer's step) reads as an operator whose self time is everything that ran between its
// children: Python, the dispatcher, untraced code. Newer Kineto files them as user_annotation;
// this gives the older traces the same reading.
#pragma once

#include <string_view>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// A name PyTorch's operators never take, in a build whose operators carry their namespace
// ("aten::mm"): no "::", not an autograd node ("AddmmBackward0", "CompiledFunction"), and not one
// of the few un-namespaced ops the autograd layer records itself ("detach_", "set_data").
bool IsRecordFunctionRangeName(std::string_view name);

// Re-kinds the host operators of `timelines` whose names are record_function ranges as user
// annotations. Does nothing where no operator of theirs is namespaced ("aten::"): a PyTorch
// before 1.6 names its operators bare ("conv2d"), and its ranges cannot be told from them.
// Returns how many events changed.
size_t MarkRecordFunctionRanges(Trace& trace, const std::vector<TimelineId>& timelines);

}  // namespace stepdoctor::chrome
