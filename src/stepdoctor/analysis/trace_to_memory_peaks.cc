#include "stepdoctor/analysis/trace_to_memory_peaks.h"

#include <algorithm>
#include <cstdio>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {

std::vector<DeviceMemoryPeak> TraceToMemoryPeaks(const Trace& trace) {
  std::vector<DeviceMemoryPeak> out;
  for (const Device& d : trace.devices) {
    if (d.kind != DeviceKind::kGpu || d.memory_bytes <= 0) continue;
    const std::string allocated = series::GpuSeriesName(d.index, series::GpuMetric::kAllocatedBytes);
    const std::string reserved = series::GpuSeriesName(d.index, series::GpuMetric::kReservedBytes);
    DeviceMemoryPeak p;
    bool any = false;
    for (const auto& c : trace.counters) {
      if (c.worker != d.worker || c.value.empty() || (c.name != allocated && c.name != reserved)) continue;
      // Trace::Finalize keeps a byte series within int64.
      int64_t peak = RoundToInt64(*std::max_element(c.value.begin(), c.value.end())).value_or(0);
      if (c.name == allocated) p.peak_allocated_bytes = peak, any = true;
      if (c.name == reserved) p.peak_reserved_bytes = peak, any = true;
    }
    if (!any) continue;
    p.capacity_bytes = d.memory_bytes;
    p.device = "GPU " + std::to_string(d.index) + (d.name.empty() ? "" : " (" + d.name + ")");
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.peak_pct() > b.peak_pct(); });
  return out;
}

}  // namespace stepdoctor
