// XSpace (`<host>.xplane.pb`, what TensorFlow's and JAX's profilers write) -> Trace.
//
// One worker per XSpace; a device per plane (/host:CPU, /device:GPU:N, /device:TPU:N); a
// timeline per line (host threads, GPU streams, a TPU's "XLA Ops", and derived lines such as
// "Steps" and "TensorFlow Ops"). Planes are decoded one at a time (in place, or by libprotobuf on an
// arena: XPlaneDecoder), so memory is the largest plane plus the trace, not a tree of the file. The stats analyses use are kept
// as event args under TensorFlow's names (step_num, group_id, tf_op, is_eager, bytes_allocated,
// ...); correlation_id becomes the event's corr.
#pragma once

#include <cstdint>
#include <functional>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// How each XPlane's bytes are decoded. kWire: read in place (importers/xplane/xplane_wire*.h);
// kProtobuf: parsed by libprotobuf on an arena (the reference). Both give the same Trace and
// refuse the same planes (tests/xplane/xplane_decoders_test.cc). kAuto: wire, unless
// STEPDOCTOR_XPLANE_DECODER=protobuf (or =wire) in the environment says otherwise.
enum class XPlaneDecoder { kAuto, kWire, kProtobuf };
// The decoder kAuto resolves to (after STEPDOCTOR_XPLANE_DECODER).
XPlaneDecoder ResolveXPlaneDecoder(XPlaneDecoder requested);

struct XSpaceImportOptions {
  XPlaneDecoder decoder = XPlaneDecoder::kAuto;
  // Called after each plane with (bytes consumed, total bytes) of the source.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// Adds the XSpace read from `src` to `trace` (one new worker). Bad planes are noted in
// trace.diagnostics and skipped; an error is returned only when nothing could be read.
// Calls trace.Finalize() (cheap on timelines that are already sorted).
Status ImportXSpace(ByteSource& src, Trace& trace, const XSpaceImportOptions& opts = {});

}  // namespace stepdoctor
