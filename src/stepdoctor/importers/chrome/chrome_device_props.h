// Devices of a Chrome trace beyond its lanes: Kineto's top-level deviceProperties (name, memory,
// SMs, compute capability), and, where it has none, whose GPUs they are from the runtime the host
// called (HIP: AMD).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

struct DeviceProps {  // one entry of deviceProperties
  int id = -1;
  std::string name;
  int64_t mem = 0;
  int sms = 0, major = 0, minor = 0;
};

// Adds the listed GPUs to the worker (a trace without kernels still says a GPU was there), fills
// each GPU's properties and vendor, and names the unnamed ones "GPU N". `timelines` are the
// worker's, whose runtime calls say the vendor where no properties do.
void ApplyDeviceProps(Trace& trace, WorkerId worker, const std::vector<DeviceProps>& props,
                      const std::vector<TimelineId>& timelines);

// TensorFlow names every GPU it placed work on (process names "/device:GPU:N ..."): adds each to
// the worker, and where none of the worker's `timelines` is a device stream, notes that device
// tracing was off or failed (the host's view is all there is) rather than let the CPU stand in.
void NoteTfGpusWithoutEvents(Trace& trace, WorkerId worker, const std::vector<std::string_view>& process_names,
                             const std::vector<TimelineId>& timelines, const std::string& source);

}  // namespace stepdoctor::chrome
