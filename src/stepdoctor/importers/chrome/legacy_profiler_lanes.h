// The autograd profiler's own Chrome export (torch.autograd.profiler.profile without Kineto:
// PyTorch before 1.8, or `use_kineto=False`): host operators on a process named "CPU functions",
// and, with `use_cuda=True`, each operator's device time, measured between CUDA events recorded
// around it, on a process named "CUDA functions" whose thread is the device index. Those device
// spans are operators, not kernels, and they nest as the operators do (conv2d holds convolution
// holds cudnn_convolution): the outermost are the device's busy time, the rest annotations.
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

struct LegacyDeviceLane {
  DeviceKind kind = DeviceKind::kHostCpu;  // kHostCpu: not a device lane
  int index = 0;
  std::string name;  // the device's name where it is not a GPU ("XPU 0"), else empty
};

// The device a lane of the autograd profiler's export belongs to, from its process name ("CUDA
// functions", "CUDA Functions", "XPU functions") and thread (the device index). kHostCpu for
// "CPU functions" and any other name.
LegacyDeviceLane LegacyDeviceLaneOf(std::string_view process_name, int64_t tid);

// Re-kinds the lane's spans: the outermost (no earlier span holds them) are device work
// (kKernel), the ones held whole by an earlier span device annotations (kDeviceAnnotation), and
// so are record_function ranges (names without a namespace among namespaced operators).
// Copy operators' outermost spans (to, copy_) are copies of unrecorded direction (kMemcpyOther).
void MarkLegacyDeviceSpans(const Trace& trace, Timeline& t);

}  // namespace stepdoctor::chrome
