// XSpace (`<host>.xplane.pb`, what TensorFlow's and JAX's profilers write) -> Trace.
//
// One worker per XSpace; a device per plane (/host:CPU, /device:GPU:N, /device:TPU:N); a
// timeline per line (host threads, GPU streams, a TPU's "XLA Ops", and derived lines such as
// "Steps" and "TensorFlow Ops"). Planes are parsed one at a time on an arena, so memory is the
// largest plane plus the trace, not a tree of the whole file. The stats analyses use are kept
// as event args under TensorFlow's names (step_num, group_id, tf_op, is_eager, bytes_allocated,
// ...); correlation_id becomes the event's corr.
#pragma once

#include <cstdint>
#include <functional>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct XSpaceImportOptions {
  // Called after each plane with (bytes consumed, total bytes) of the source.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// Adds the XSpace read from `src` to `trace` (one new worker). Bad planes are noted in
// trace.diagnostics and skipped; an error is returned only when nothing could be read.
// Calls trace.Finalize() (cheap on timelines that are already sorted).
Status ImportXSpace(ByteSource& src, Trace& trace, const XSpaceImportOptions& opts = {});

}  // namespace stepdoctor
