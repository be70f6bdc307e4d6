// Guesses an input's format from its first bytes (after gzip), not its name: a .json may be
// gzip, an .xplane.pb may be renamed (Perfetto's GuessTraceType). An XSpace with planes is
// recognised by its bytes alone; only an XSpace without planes needs its .xplane.pb name.
#pragma once

#include <string_view>

namespace stepdoctor {

enum class InputFormat {
  kUnknown,
  kChromeJson,       // {"traceEvents": ...} or a bare array of events
  kJsonOther,        // JSON that is not a trace (xprof's converted pages, a run's metrics)
  kMemoryTimeline,   // PyTorch's memory timeline: [[t, action, bytes, category], ...] or [[times], [[sizes]]]
  kJsonLines,        // one JSON object per line (SageMaker system metrics, stepdoctor samples)
  kXSpace,           // TensorFlow/JAX profiler XSpace protobuf
  kTfRecordEvents,   // TensorBoard event file (TFRecord framing around Event protos)
  kCsv,              // a CSV with a header line (nvidia-smi --format=csv logs)
  kNvidiaSmiTable,   // nvidia-smi's default table, one or many snapshots (`nvidia-smi -l`, a loop)
  kNvidiaSmiDmon,    // `nvidia-smi dmon` output ("# gpu  pwr  gtemp ..." headers, one row per GPU a poll)
  kTegrastats,       // NVIDIA Jetson's `tegrastats` log ("RAM 17953/62841MB ... GR3D_FREQ 39%@...")
};

const char* InputFormatName(InputFormat f);

// `head` is the first bytes (up to 64 KiB is plenty); `name` is a hint only, used to tell
// apart formats whose first bytes look alike (protobuf messages have no magic number).
InputFormat DetectFormat(std::string_view head, std::string_view name);

}  // namespace stepdoctor
