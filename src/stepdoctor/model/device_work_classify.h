// The one classifier of device work, shared by the importers (which set EventKind) and every
// analysis (precision splits, advice). Each answer comes from a data table of name patterns in
// device_work_classify.cc, tested on real kernel names in tests/model/device_work_classify_test.cc.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepdoctor {

// The narrowest number format a kernel computes in, as its name says. kUnstated covers fp32 and
// every kernel whose name names no format (elementwise kernels templated on float, Triton
// kernels without a dtype suffix): it is never taken as proof of fp32 by itself.
enum class KernelPrecision : uint8_t { kUnstated, kFp32, kTf32, k16Bit, kFp8, kFp4 };
const char* KernelPrecisionName(KernelPrecision p);  // "unstated", "fp32", "tf32", "16bit", "fp8", "fp4"

// Reduced precision: 16-bit (fp16, bf16) or narrower (fp8, fp4). Such a run needs no advice to
// switch to fp16 autocast.
inline bool IsReducedPrecision(KernelPrecision p) {
  return p == KernelPrecision::k16Bit || p == KernelPrecision::kFp8 || p == KernelPrecision::kFp4;
}

enum class DeviceWorkRole : uint8_t {
  kCompute,     // a compute kernel
  kCollective,  // communication: NCCL/RCCL/HCCL, DeepEP dispatch/combine, NVLS/symmetric-memory all-reduce
  kCopy,        // a memory copy (Memcpy, DMA)
  kMemset,
};

struct DeviceWorkClass {
  DeviceWorkRole role = DeviceWorkRole::kCompute;
  KernelPrecision precision = KernelPrecision::kUnstated;
  bool tensor_core = false;        // matrix units: HMMA/xmma/wgmma/MFMA/tensorop, cuBLASLt nvjet
  bool matrix = false;             // a GEMM or convolution (on matrix units or not): compute-bound
                                   // work that 16-bit math speeds up most; the rest is memory-bound
  std::string_view library;        // "nccl", "deepep", "cublas", "cudnn", "cutlass", "hipblaslt", "triton", ... or empty
};

DeviceWorkClass ClassifyDeviceWork(std::string_view kernel_name);

// True for a name shaped like device work, read without any category: a copy or memset as the
// runtimes and tracers name them ("Memcpy HtoD (Pageable -> Device)", "[MEMCPY] DtoH",
// "[CUDA memset]", "Memset (Device)"), a demangled kernel signature ("void ns::name<...>(...)"),
// a name with "kernel" in it (elementwise_kernel, ncclDevKernel_..., cutlass::Kernel<...>), or a
// GEMM/convolution/communication/Triton kernel by its library's naming (ampere_sgemm_*,
// sm80_xmma_*, nvjet_*, triton_poi_*). Runtime and driver calls (cudaLaunchKernel,
// cudaMemcpyAsync) and framework operators ("aten::...") are not. One name proves nothing about a
// lane: the importers weigh the share of such names over a whole lane.
bool IsDeviceWorkShapedName(std::string_view name);

// Shorthands over ClassifyDeviceWork.
bool IsCommunicationKernelName(std::string_view kernel_name);
// TensorFlow's NcclManager names each collective it runs by its type (kAllReduce, kBroadcast,
// kReduce, kAllGather, kReduceScatter, kAllToAll), as SageMaker's profiler records them on a lane
// of that name: NCCL collectives, which run on GPUs.
bool IsTfNcclManagerCollective(std::string_view name);
KernelPrecision KernelPrecisionOf(std::string_view kernel_name);

}  // namespace stepdoctor
