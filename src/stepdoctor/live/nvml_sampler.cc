#include "stepdoctor/live/nvml_sampler.h"

#include <dlfcn.h>

#include <algorithm>

#include "stepdoctor/model/series_names.h"

namespace stepdoctor::live {

Result<NvmlApi> LoadNvml(const std::string& library) {
  void* h = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    return Result<NvmlApi>(ErrorCode::kNotFound, why ? why : library + ": cannot be loaded");
  }
  NvmlApi api;
  api.handle = h;
  auto sym = [h](const char* a, const char* b = nullptr) {
    void* p = ::dlsym(h, a);
    if (!p && b) p = ::dlsym(h, b);
    return p;
  };
  // dlsym returns void*; POSIX guarantees it converts to a function pointer.
  api.init = reinterpret_cast<decltype(api.init)>(sym("nvmlInit_v2", "nvmlInit"));
  api.shutdown = reinterpret_cast<decltype(api.shutdown)>(sym("nvmlShutdown"));
  api.device_count = reinterpret_cast<decltype(api.device_count)>(sym("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"));
  api.device_by_index = reinterpret_cast<decltype(api.device_by_index)>(
      sym("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"));
  api.name = reinterpret_cast<decltype(api.name)>(sym("nvmlDeviceGetName"));
  api.utilization = reinterpret_cast<decltype(api.utilization)>(sym("nvmlDeviceGetUtilizationRates"));
  api.memory = reinterpret_cast<decltype(api.memory)>(sym("nvmlDeviceGetMemoryInfo"));
  api.pcie_throughput = reinterpret_cast<decltype(api.pcie_throughput)>(sym("nvmlDeviceGetPcieThroughput"));
  api.power_mw = reinterpret_cast<decltype(api.power_mw)>(sym("nvmlDeviceGetPowerUsage"));
  api.clock_mhz = reinterpret_cast<decltype(api.clock_mhz)>(sym("nvmlDeviceGetClockInfo"));
  api.processes = reinterpret_cast<decltype(api.processes)>(
      sym("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"));
  if (!api.init || !api.device_count || !api.device_by_index || !api.utilization || !api.memory) {
    ::dlclose(h);
    return Result<NvmlApi>(ErrorCode::kNotFound, library + ": lacks the NVML entry points stepdoctor needs");
  }
  if (nvml::Return rc = api.init(); rc != nvml::kSuccess) {
    ::dlclose(h);
    return Result<NvmlApi>(ErrorCode::kIoError, library + ": nvmlInit failed with NVML error " + std::to_string(rc));
  }
  return api;
}

NvmlSampler::NvmlSampler(NvmlApi api) : api_(api) {
  unsigned int n = 0;
  if (api_.device_count(&n) != nvml::kSuccess) n = 0;
  for (unsigned int i = 0; i < n; ++i) {
    nvml::Device d{};
    if (api_.device_by_index(i, &d) != nvml::kSuccess) continue;
    GpuInfo g;
    g.index = int(i);
    char name[96] = {};
    if (api_.name && api_.name(d, name, sizeof name) == nvml::kSuccess) g.name = name;
    nvml::Memory m{};
    if (api_.memory(d, &m) == nvml::kSuccess) g.memory_total_bytes = m.total;
    devices_.push_back(d);
    gpus_.push_back(std::move(g));
  }
  procs_.resize(64);
}

NvmlSampler::~NvmlSampler() {
  if (api_.shutdown) api_.shutdown();
  if (api_.handle) ::dlclose(api_.handle);
}

void NvmlSampler::Sample(const std::vector<int64_t>& tree_pids, live::Sample* out) {
  for (size_t i = 0; i < devices_.size(); ++i) {
    nvml::Device d = devices_[i];
    const int g = gpus_[i].index;
    using series::GpuMetric;
    using series::GpuSeriesName;
    nvml::Utilization u{};
    if (api_.utilization(d, &u) == nvml::kSuccess) {
      out->Add(GpuSeriesName(g, GpuMetric::kUtilPct), u.gpu);
      out->Add(GpuSeriesName(g, GpuMetric::kMemUtilPct), u.memory);
    }
    nvml::Memory m{};
    if (api_.memory(d, &m) == nvml::kSuccess) {
      out->Add(GpuSeriesName(g, GpuMetric::kMemUsedBytes), double(m.used));
      out->Add(GpuSeriesName(g, GpuMetric::kMemTotalBytes), double(m.total));
    }
    unsigned int v = 0;
    if (api_.pcie_throughput && api_.pcie_throughput(d, nvml::kPcieRxBytes, &v) == nvml::kSuccess)
      out->Add(GpuSeriesName(g, GpuMetric::kPcieRxBytesPerS), double(v) * 1024);
    if (api_.pcie_throughput && api_.pcie_throughput(d, nvml::kPcieTxBytes, &v) == nvml::kSuccess)
      out->Add(GpuSeriesName(g, GpuMetric::kPcieTxBytesPerS), double(v) * 1024);
    if (api_.power_mw && api_.power_mw(d, &v) == nvml::kSuccess) out->Add(GpuSeriesName(g, GpuMetric::kPowerW), double(v) / 1000.0);
    if (api_.clock_mhz && api_.clock_mhz(d, nvml::kClockSm, &v) == nvml::kSuccess) out->Add(GpuSeriesName(g, GpuMetric::kSmClockMhz), v);
    if (api_.processes) {
      unsigned int count = unsigned(procs_.size());
      nvml::Return rc = api_.processes(d, &count, procs_.data());
      if (rc == nvml::kInsufficientSize && count > procs_.size()) {
        procs_.resize(count + 16);
        count = unsigned(procs_.size());
        rc = api_.processes(d, &count, procs_.data());
      }
      if (rc == nvml::kSuccess) {
        double bytes = 0;
        for (unsigned int k = 0; k < count && k < procs_.size(); ++k)
          if (procs_[k].used_gpu_memory != ~0ULL &&  // NVML_VALUE_NOT_AVAILABLE (e.g. under MIG or WDDM)
              std::find(tree_pids.begin(), tree_pids.end(), int64_t(procs_[k].pid)) != tree_pids.end())
            bytes += double(procs_[k].used_gpu_memory);
        out->Add(GpuSeriesName(g, GpuMetric::kProcMemBytes), bytes);
      }
    }
  }
}

}  // namespace stepdoctor::live
