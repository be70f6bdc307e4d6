// Everything `run` and `watch` sample at each tick: the machine, the process tree and, where
// NVML loads, the GPUs. Sampling only reads /proc and NVML: it never touches the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stepdoctor/live/nvml_sampler.h"
#include "stepdoctor/live/proc_sampler.h"
#include "stepdoctor/live/sample.h"

namespace stepdoctor::live {

struct LiveSamplerOptions {
  bool gpus = true;                              // try NVML
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string proc_root = "/proc";
};

class LiveSampler {
 public:
  LiveSampler(int64_t root_pid, const LiveSamplerOptions& opts = {});
  // Takes one sample now. The first call primes the counters: rates appear from the second.
  Sample Take();
  bool tree_alive() const { return tree_.alive(); }
  int cores() const { return system_.cores(); }
  const std::vector<GpuInfo>& gpus() const;
  // "ok" when NVML loaded, else the one-line reason there are no GPU series.
  const std::string& nvml_status() const { return nvml_status_; }

 private:
  SystemSampler system_;
  ProcessTreeSampler tree_;
  std::unique_ptr<NvmlSampler> nvml_;
  std::string nvml_status_;
};

}  // namespace stepdoctor::live
