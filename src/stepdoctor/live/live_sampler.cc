#include "stepdoctor/live/live_sampler.h"

namespace stepdoctor::live {

LiveSampler::LiveSampler(int64_t root_pid, const LiveSamplerOptions& opts)
    : system_(opts.proc_root), tree_(root_pid, opts.proc_root) {
  if (!opts.gpus) {
    nvml_status_ = "GPU sampling turned off";
    return;
  }
  auto api = LoadNvml(opts.nvml_library);
  if (!api.ok()) {
    nvml_status_ = api.message();
    return;
  }
  nvml_ = std::make_unique<NvmlSampler>(*api);
  nvml_status_ = "ok";
}

const std::vector<GpuInfo>& LiveSampler::gpus() const {
  static const std::vector<GpuInfo> kNone;
  return nvml_ ? nvml_->gpus() : kNone;
}

Sample LiveSampler::Take() {
  Sample s;
  s.ts_ns = WallNowNs();
  int64_t mono = MonotonicNowNs();
  system_.Sample(mono, &s);
  tree_.Sample(mono, &s);
  if (nvml_) nvml_->Sample(tree_.pids(), &s);
  return s;
}

}  // namespace stepdoctor::live
