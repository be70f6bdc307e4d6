// Trace -> the samples each step reads, where the trace shows it: PyTorch traces recorded with
// record_shapes=True give each operator's "Input Dims", and the first copy of a tensor after a
// DataLoader fetch (the batch moved to the device: aten::to / _to_copy / copy_) has the batch as
// its leading dimension ([[32, 3, 224, 224], ...] -> 32). The figure is the one most fetches
// agree on, with how many did; nothing where no fetch is followed by a copy with shapes (no
// record_shapes, a CPU job that never copies its batch, TensorFlow, whose traces hold no shapes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stepdoctor/model/batch_copy.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct BatchSize {
  int64_t samples = 0;  // > 0
  int fetches = 0;      // DataLoader fetches followed by a copy with shapes
  int agreeing = 0;     // of them, those whose copy's leading dimension is `samples`
  std::string op;       // the copy that showed it ("aten::to")
  std::string Describe() const;  // "32 samples a step: the leading dimension of aten::to's input after 6 of 6 DataLoader fetches"
};

// The leading dimension of the first tensor of at least one dimension in an "Input Dims" value
// ("[[32, 3, 224, 224], [], []]" -> 32); 0 where there is none.
int64_t LeadingDimension(std::string_view input_dims);

std::optional<BatchSize> TraceToBatchSize(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
