// Device temporal breakdown per device, with Holistic Trace Analysis' definitions so the
// figures can be held against HTA's:
//   span = last device event end - first device event start (all streams of the device)
//   idle = span - union of device events; compute = union of compute kernels
//   non_compute = span - idle - compute (communication or memory not under compute)
//   comm_comp_overlap = |communication ∩ compute| / |communication|
// Like HTA, with two or more ProfilerStep#N markers the last step is left out: only device
// work whose correlation id matches a host event starting before the last step is counted
// (the last step is usually cut by the profiler's window).
#pragma once

#include <vector>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct DeviceActivity {
  DeviceId device;
  IntervalSet all, compute, communication, memory;  // unions over the device's streams
  int64_t span_start_ns = 0, span_end_ns = 0;
  int64_t kernel_count = 0;
};

// REQUIRED: trace finalized. `hta_filter` applies HTA's last-step filter described above.
std::vector<DeviceActivity> TraceToDeviceActivity(const Trace& trace, bool hta_filter);

DeviceUtilization DeviceActivityToUtilization(const Trace& trace, const DeviceActivity& a);

}  // namespace stepdoctor
