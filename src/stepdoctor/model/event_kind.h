// What an event is, independent of the format it came from. Importers map their own names
// (Kineto's `kernel`/`Kernel`, XPlane's stream lines, ...) onto these once, at import.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepdoctor {

enum class EventKind : uint8_t {
  kOther = 0,
  kFrameworkOp,     // aten::conv2d, a TF op on the host
  kKernel,          // device compute kernel
  kCollective,      // communication: NCCL/RCCL kernels on a device, c10d/Collective ops on a host
  kMemcpyH2D,
  kMemcpyD2H,
  kMemcpyD2D,
  kMemcpyOther,     // peer-to-peer, unknown direction
  kMemset,
  kRuntime,         // cudaLaunchKernel, hipMemcpyAsync, cudaStreamSynchronize ...
  kInputWait,       // DataLoader __next__, tf.data IteratorGetNext
  kStepMarker,      // ProfilerStep#N, TF step line events
  kPythonFunction,
  kUserAnnotation,  // record_function ranges on the host
  kDeviceAnnotation,  // gpu_user_annotation: a host range mirrored onto a stream
  kMemoryEvent,     // allocation/free instant events
  kSync,            // cuda_sync / device synchronisation markers
  kCollectiveWait,  // waiting for peers before a collective can start (Horovod NEGOTIATE_*): no data moves
  kFrameworkOverhead,  // an op the framework runs for its own bookkeeping, doing no math (TF's NoOp,
                       // _Arg, Const: model/tf_op_classify.h): host overhead, not operator compute
  kCount_
};

inline bool IsMemcpy(EventKind k) {
  return k == EventKind::kMemcpyH2D || k == EventKind::kMemcpyD2H || k == EventKind::kMemcpyD2D ||
         k == EventKind::kMemcpyOther;
}
// Device activity that occupies a stream (what HTA calls a "GPU event").
inline bool IsDeviceActivity(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kCollective || IsMemcpy(k) ||
         k == EventKind::kMemset;
}

}  // namespace stepdoctor
