// GPU samples through NVML, loaded at run time (dlopen of libnvidia-ml.so.1) so the binary runs
// on machines without a GPU or driver. The few NVML types and entry points used are declared
// here from NVML's documented C API; no CUDA headers are needed to build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/live/sample.h"

namespace stepdoctor::live {

// NVML's C ABI (nvml.h), only what the sampler calls.
namespace nvml {
using Return = int;                           // nvmlReturn_t
inline constexpr Return kSuccess = 0;         // NVML_SUCCESS
inline constexpr Return kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
using Device = struct DeviceSt*;              // nvmlDevice_t
struct Utilization {                          // nvmlUtilization_t
  unsigned int gpu;                           // % of the last period a kernel was running
  unsigned int memory;                        // % of the last period device memory was read/written
};
struct Memory {                               // nvmlMemory_t
  unsigned long long total, free, used;
};
struct ProcessInfo {                          // nvmlProcessInfo_t (v2 layout, _v3 entry point)
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
};
inline constexpr int kPcieTxBytes = 0;        // NVML_PCIE_UTIL_TX_BYTES
inline constexpr int kPcieRxBytes = 1;        // NVML_PCIE_UTIL_RX_BYTES
inline constexpr int kClockSm = 1;            // NVML_CLOCK_SM
}  // namespace nvml

// The entry points, as loaded. Tests fill this with fakes; LoadNvml fills it from the library.
// Optional entry points may be null (older drivers): their series are then left out.
struct NvmlApi {
  nvml::Return (*init)() = nullptr;                                      // nvmlInit_v2
  nvml::Return (*shutdown)() = nullptr;                                  // nvmlShutdown
  nvml::Return (*device_count)(unsigned int*) = nullptr;                 // nvmlDeviceGetCount_v2
  nvml::Return (*device_by_index)(unsigned int, nvml::Device*) = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  nvml::Return (*name)(nvml::Device, char*, unsigned int) = nullptr;       // nvmlDeviceGetName
  nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr; // nvmlDeviceGetUtilizationRates
  nvml::Return (*memory)(nvml::Device, nvml::Memory*) = nullptr;           // nvmlDeviceGetMemoryInfo
  nvml::Return (*pcie_throughput)(nvml::Device, int, unsigned int*) = nullptr;  // KB/s; optional
  nvml::Return (*power_mw)(nvml::Device, unsigned int*) = nullptr;               // optional
  nvml::Return (*clock_mhz)(nvml::Device, int, unsigned int*) = nullptr;         // optional
  nvml::Return (*processes)(nvml::Device, unsigned int*, nvml::ProcessInfo*) = nullptr;  // optional
  void* handle = nullptr;  // the dlopen handle, closed by the sampler
};

// Loads NVML from `library` (default: libnvidia-ml.so.1 on the loader's path) and initialises
// it. Fails with a one-line reason ("libnvidia-ml.so.1: cannot open shared object file") when
// there is no driver; callers say so once and carry on without GPU series.
Result<NvmlApi> LoadNvml(const std::string& library = "libnvidia-ml.so.1");

struct GpuInfo {
  int index = 0;
  std::string name;
  uint64_t memory_total_bytes = 0;
};

class NvmlSampler {
 public:
  // Takes an initialised API (LoadNvml, or fakes in tests) and enumerates the GPUs.
  explicit NvmlSampler(NvmlApi api);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  const std::vector<GpuInfo>& gpus() const { return gpus_; }
  // Appends gpu<N>_* series; `tree_pids` selects the per-process memory summed into
  // gpu<N>_proc_mem_bytes (NVML reports host pids: inside a container they may not match).
  void Sample(const std::vector<int64_t>& tree_pids, live::Sample* out);

 private:
  NvmlApi api_;
  std::vector<nvml::Device> devices_;
  std::vector<GpuInfo> gpus_;
  std::vector<nvml::ProcessInfo> procs_;
};

}  // namespace stepdoctor::live
