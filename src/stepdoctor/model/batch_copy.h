// The operators that move a fetched batch (to the device, or into pinned memory's copy): their
// "Input Dims" (PyTorch's record_shapes) show the batch as the leading dimension, so the Chrome
// importer keeps that arg on them alone, and analysis/trace_to_batch_size reads it.
#pragma once

#include <string_view>

namespace stepdoctor {

inline bool IsBatchCopyOpName(std::string_view name) {
  return name == "aten::to" || name == "aten::_to_copy" || name == "aten::copy_";
}

}  // namespace stepdoctor
