#include "stepdoctor/importers/chrome/chrome_device_props.h"

#include <string_view>

#include "stepdoctor/importers/chrome/chrome_process_names.h"

namespace stepdoctor::chrome {

void ApplyDeviceProps(Trace& trace, WorkerId worker, const std::vector<DeviceProps>& props,
                      const std::vector<TimelineId>& timelines) {
  // deviceProperties lists the GPUs the job could see, whether or not their activity was
  // recorded: keep them as devices, so a trace without kernels still says a GPU was there.
  for (const auto& p : props)
    if (p.id >= 0) trace.GetOrAddDevice(worker, DeviceKind::kGpu, p.id);
  for (auto& d : trace.devices) {
    if (d.worker != worker || d.kind != DeviceKind::kGpu) continue;
    for (const auto& p : props) {
      if (p.id != d.index) continue;
      d.name = p.name;
      d.memory_bytes = p.mem;
      d.sm_count = p.sms;
      d.compute_major = p.major;
      d.compute_minor = p.minor;
      d.vendor = p.name.find("AMD") != std::string::npos || p.name.find("MI") == 0 ? "amd" : "nvidia";
    }
    if (d.name.empty()) d.name = "GPU " + std::to_string(d.index);
  }
  // Without device properties, the runtime the host called says whose GPUs they are (HIP: AMD).
  int hip = 0, cuda = 0;
  for (TimelineId id : timelines) {
    const Timeline& t = trace.timeline(id);
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kRuntime) {
        std::string_view n = trace.str(t.ev.name[i]);
        if (n.substr(0, 3) == "hip") ++hip;
        else if (n.substr(0, 2) == "cu") ++cuda;
      }
  }
  for (auto& d : trace.devices)
    if (d.worker == worker && d.kind == DeviceKind::kGpu && d.vendor.empty() && hip + cuda > 0)
      d.vendor = hip > cuda ? "amd" : "nvidia";
}

void NoteTfGpusWithoutEvents(Trace& trace, WorkerId worker, const std::vector<std::string_view>& process_names,
                             const std::vector<TimelineId>& timelines, const std::string& source) {
  int named_gpus = 0;
  for (std::string_view name : process_names) {
    int gpu = TrailingDeviceNumber(name, "/device:GPU:");
    if (gpu < 0) continue;
    ++named_gpus;
    trace.GetOrAddDevice(worker, DeviceKind::kGpu, gpu);  // the job used it: coverage says so
  }
  bool any_stream = false;
  for (TimelineId id : timelines) any_stream |= trace.timeline(id).kind == TimelineKind::kDeviceStream;
  if (named_gpus > 0 && !any_stream)
    trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                           source + ": the trace names " + std::to_string(named_gpus) +
                               " GPU lane(s) but holds no GPU tracer events (device tracing off or failed): device time unknown");
}

}  // namespace stepdoctor::chrome
