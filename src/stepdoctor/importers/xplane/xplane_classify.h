// What XPlane planes, lines and events are, in the model's terms (DeviceKind, TimelineKind,
// EventKind), from their names and a few stats. Decided once per plane, line and event
// metadata at import.
#pragma once

#include <string_view>

#include "stepdoctor/model/event_kind.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::xplane {

struct PlaneClass {
  bool keep = false;  // false for planes without timelines (/host:metadata, Task Environment)
  DeviceKind kind = DeviceKind::kHostCpu;
  int index = 0;
};
// "/host:CPU", "/host:CUPTI" -> host; "/device:GPU:N" -> GPU N; "/device:TPU:N" -> TPU N;
// other "/device:..." planes -> kOther.
PlaneClass ClassifyPlane(std::string_view plane_name);

// How the events of one line are classified.
enum class LineClass : uint8_t {
  kHostThread,  // a CPU thread: TF ops, runtime API calls, tf.data iterators, memory events
  kStream,      // a GPU stream ("Stream #N(...)"): kernels, copies, memsets
  kTpuOps,      // a TPU's "XLA Ops" line: the device activity, kinds from hlo_category
  kSteps,       // a "Steps" line: one event per training step
  kOps,         // "TensorFlow Ops" / "Framework Ops" / "XLA Ops" on GPUs: op ranges derived
                // from the stream events
  kDerived,     // anything else a profiler derived: name scopes, XLA modules, TraceMe lines
};
LineClass ClassifyLine(DeviceKind device, std::string_view line_name);
TimelineKind TimelineKindOf(LineClass c);

// Kind of an event from its metadata name, on a line of class `c`. Per-event facts that
// change the answer (a correlation id on a host event, memcpy_details on a stream event,
// hlo_category on a TPU op) are applied by the caller with the helpers below.
EventKind ClassifyEventName(LineClass c, std::string_view name);
// A host event carrying a correlation id is a CUDA/HIP API call that launched device work
// (TF names such calls after the kernel they launch).
EventKind HostKindWithCorrelation(EventKind by_name);
// TPU op kind from its hlo_category ("all-reduce", "convolution", ...).
EventKind TpuOpKind(std::string_view hlo_category, std::string_view name);
// Memcpy direction from a stream event's name or its line's name ("Stream #7(MemcpyD2H)").
EventKind MemcpyKindOf(std::string_view name, std::string_view line_name);

// True for names of TensorFlow host op types that wait for the next input element.
bool IsTfInputOpType(std::string_view op_type);

}  // namespace stepdoctor::xplane
