// Peak device memory from allocator counters PyTorch's profiler records (Kineto's [memory]
// events with profile_memory=True: Total Allocated / Total Reserved per device), against the
// device's memory from deviceProperties.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct DeviceMemoryPeak {
  std::string device;          // "GPU 1 (Tesla V100-SXM2-32GB)"
  int64_t capacity_bytes = 0;  // 0 where the trace does not say
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;  // what the caching allocator holds: what runs out first
  double peak_pct() const {
    int64_t held = std::max(peak_reserved_bytes, peak_allocated_bytes);
    return capacity_bytes > 0 ? 100.0 * double(held) / double(capacity_bytes) : 0;
  }
};

// Highest share first. Only GPUs with both counters and a known capacity.
std::vector<DeviceMemoryPeak> TraceToMemoryPeaks(const Trace& trace);

}  // namespace stepdoctor
