#include "stepdoctor/importers/xplane/xplane_classify.h"

#include <charconv>

#include "stepdoctor/importers/chrome/chrome_event_classify.h"

namespace stepdoctor::xplane {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

int TrailingNumber(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
  int n = 0;
  if (i == s.size() || std::from_chars(s.data() + i, s.data() + s.size(), n).ec != std::errc()) return 0;
  return n;
}

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

// cuLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, cuStreamSynchronize, ...
bool IsRuntimeApiName(std::string_view n) {
  for (std::string_view p : {"cuda", "hip", "cu"})
    if (StartsWith(n, p) && n.size() > p.size() && IsUpper(n[p.size()])) return true;
  return false;
}

// TF op types of collectives run on the host (the all-reduce itself runs inside them).
bool IsCollectiveOpType(std::string_view t) {
  return StartsWith(t, "Collective") || StartsWith(t, "Nccl") || t == "AllReduce" || StartsWith(t, "HorovodAllreduce") ||
         StartsWith(t, "HorovodAllgather") || StartsWith(t, "HorovodBroadcast");
}

}  // namespace

PlaneClass ClassifyPlane(std::string_view name) {
  PlaneClass c;
  if (StartsWith(name, "/host:")) {
    c.keep = name == "/host:CPU" || name == "/host:CUPTI" || name == "/host:ROCM" || !Contains(name, "metadata");
    c.kind = DeviceKind::kHostCpu;
    return c;
  }
  if (StartsWith(name, "/device:")) {
    c.keep = true;
    c.index = TrailingNumber(name);
    if (StartsWith(name, "/device:GPU:")) c.kind = DeviceKind::kGpu;
    else if (StartsWith(name, "/device:TPU:")) c.kind = DeviceKind::kTpu;
    else c.kind = DeviceKind::kOther;
    return c;
  }
  return c;  // "Task Environment", "/host:metadata" and unknown planes carry no timelines
}

LineClass ClassifyLine(DeviceKind device, std::string_view n) {
  if (device == DeviceKind::kHostCpu) return LineClass::kHostThread;
  if (n == "Steps") return LineClass::kSteps;
  if (StartsWith(n, "Stream #") || StartsWith(n, "Stream ")) return LineClass::kStream;
  if (n == "XLA Ops") return device == DeviceKind::kTpu ? LineClass::kTpuOps : LineClass::kOps;
  if (n == "TensorFlow Ops" || n == "Framework Ops") return LineClass::kOps;
  return LineClass::kDerived;
}

TimelineKind TimelineKindOf(LineClass c) {
  switch (c) {
    case LineClass::kHostThread: return TimelineKind::kHostThread;
    case LineClass::kStream:
    case LineClass::kTpuOps: return TimelineKind::kDeviceStream;
    default: return TimelineKind::kDerived;
  }
}

bool IsTfInputOpType(std::string_view t) {
  return t == "IteratorGetNext" || t == "IteratorGetNextSync" || t == "IteratorGetNextAsOptional" ||
         t == "MultiDeviceIteratorGetNextFromShard" || t == "InfeedEnqueueTuple" ||
         t.substr(0, 12) == "QueueDequeue";  // TF1 input queues: QueueDequeueV2, QueueDequeueManyV2, ...
}

EventKind MemcpyKindOf(std::string_view name, std::string_view line) {
  for (std::string_view s : {name, line}) {
    if (Contains(s, "H2D") || Contains(s, "HtoD") || Contains(s, "HostToDevice")) return EventKind::kMemcpyH2D;
    if (Contains(s, "D2H") || Contains(s, "DtoH") || Contains(s, "DeviceToHost")) return EventKind::kMemcpyD2H;
    if (Contains(s, "D2D") || Contains(s, "DtoD") || Contains(s, "DeviceToDevice")) return EventKind::kMemcpyD2D;
  }
  return EventKind::kMemcpyOther;
}

EventKind ClassifyEventName(LineClass c, std::string_view n) {
  switch (c) {
    case LineClass::kSteps: return EventKind::kStepMarker;
    case LineClass::kOps: return EventKind::kFrameworkOp;
    case LineClass::kDerived: return EventKind::kOther;
    case LineClass::kTpuOps: return TpuOpKind({}, n);
    case LineClass::kStream:
      if (chrome::IsCommunicationKernelName(n)) return EventKind::kCollective;
      if (StartsWith(n, "Memcpy") || StartsWith(n, "memcpy") || StartsWith(n, "Copy")) return MemcpyKindOf(n, {});
      if (StartsWith(n, "Memset") || StartsWith(n, "memset")) return EventKind::kMemset;
      return EventKind::kKernel;
    case LineClass::kHostThread: break;
  }
  // Host threads.
  if (StartsWith(n, "Iterator::")) return EventKind::kOther;  // tf.data stages: read by name
  if (n == "MemoryAllocation" || n == "MemoryDeallocation") return EventKind::kMemoryEvent;
  if (!n.empty() && n[0] == '$') return EventKind::kPythonFunction;  // JAX/TF python tracer
  if (IsRuntimeApiName(n)) return EventKind::kRuntime;
  // TF ops are "name:Type"; classify by the type so "IteratorGetNext_3/_59:_Recv" is a _Recv.
  size_t colon = n.rfind(':');
  bool op = colon != std::string_view::npos && colon > 0 && n[colon - 1] != ':' && colon + 1 < n.size() &&
            !Contains(n, " ") && !Contains(n.substr(0, colon), "::");
  if (op) {
    std::string_view type = n.substr(colon + 1);
    if (IsTfInputOpType(type)) return EventKind::kInputWait;
    if (IsCollectiveOpType(type)) return EventKind::kCollective;
    return EventKind::kFrameworkOp;
  }
  if (chrome::IsInputWaitName(n)) return EventKind::kInputWait;
  if (StartsWith(n, "__inference_") || StartsWith(n, "__forward_") || StartsWith(n, "__backward_"))
    return EventKind::kUserAnnotation;  // a tf.function call: encloses the ops it runs
  return EventKind::kOther;
}

EventKind HostKindWithCorrelation(EventKind by_name) {
  if (by_name == EventKind::kInputWait || by_name == EventKind::kMemoryEvent) return by_name;
  return EventKind::kRuntime;
}

EventKind TpuOpKind(std::string_view cat, std::string_view name) {
  // An HLO op's name is "%all-reduce.3 = f32[...] all-reduce(...)": look at its own part only.
  std::string_view own = name.substr(0, name.find(' '));
  for (std::string_view s : {cat, own}) {
    if (s.empty()) continue;
    if (Contains(s, "all-reduce") || Contains(s, "all-gather") || Contains(s, "reduce-scatter") ||
        Contains(s, "all-to-all") || Contains(s, "collective-permute") || Contains(s, "send") || Contains(s, "recv"))
      return EventKind::kCollective;
    if (s == "host-to-device" || StartsWith(s, "infeed")) return EventKind::kMemcpyH2D;
    if (s == "device-to-host" || StartsWith(s, "outfeed")) return EventKind::kMemcpyD2H;
    if (!cat.empty()) break;  // the category decides when there is one
  }
  return EventKind::kKernel;
}

}  // namespace stepdoctor::xplane
