#include "stepdoctor/analysis/memory_timeline_signals.h"

#include <algorithm>

namespace stepdoctor {

using series::MemoryCategory;
using series::kMemoryCategoryCount;

std::optional<MemoryTimelineSignals> TraceToMemoryTimeline(const Trace& trace) {
  // The first worker with a timeline: its category series share their times (the importer
  // writes one point per time to each).
  std::array<const CounterSeries*, kMemoryCategoryCount> by_cat{};
  const CounterSeries* first = nullptr;
  for (const auto& c : trace.counters) {
    if (c.name.rfind(series::kMemoryTimelinePrefix, 0) != 0 || c.value.empty()) continue;
    if (first && c.worker != first->worker) continue;  // another timeline: the first one is read
    for (int k = 0; k < kMemoryCategoryCount; ++k)
      if (!by_cat[size_t(k)] && c.name == series::MemoryTimelineSeriesName(MemoryCategory(k))) {
        by_cat[size_t(k)] = &c;
        if (!first) first = &c;
      }
  }
  if (!first) return std::nullopt;
  const size_t n = first->ts_ns.size();
  for (const CounterSeries* c : by_cat)
    if (c && c->ts_ns.size() != n) return std::nullopt;  // not one timeline's points

  MemoryTimelineSignals s;
  s.source = first->worker.valid() && first->worker.v < trace.workers.size() ? trace.worker(first->worker).source_path : "";
  s.points = int64_t(n);
  s.window_s = double(first->ts_ns.back() - first->ts_ns.front()) / 1e9;
  std::vector<double> total(n, 0.0);
  for (const CounterSeries* c : by_cat)
    if (c)
      for (size_t i = 0; i < n; ++i) total[i] += std::max(0.0, c->value[i]);
  size_t peak_i = size_t(std::max_element(total.begin(), total.end()) - total.begin());
  s.peak_bytes = total[peak_i];
  s.peak_at_s = double(first->ts_ns[peak_i] - first->ts_ns.front()) / 1e9;
  for (int k = 0; k < kMemoryCategoryCount; ++k) {
    if (!by_cat[size_t(k)]) continue;
    s.at_peak[size_t(k)] = std::max(0.0, by_cat[size_t(k)]->value[peak_i]);
    s.at_end[size_t(k)] = std::max(0.0, by_cat[size_t(k)]->value[n - 1]);
  }
  s.lowest_bytes = *std::min_element(total.begin(), total.end());

  // Cycles by hysteresis between the two levels; a trough is the least held from a fall under
  // the low level to the next rise past the high one.
  const double span = s.peak_bytes - s.lowest_bytes;
  if (span > 0) {
    const double high = s.lowest_bytes + kCycleHighFraction * span, low = s.lowest_bytes + kCycleLowFraction * span;
    bool up = false, fell = false;
    double trough = 0;
    for (double v : total) {
      if (!up && v >= high) {
        if (fell) s.troughs_bytes.push_back(trough);
        up = true;
        ++s.cycles;
      } else if (up && v <= low) {
        up = false;
        fell = true;
        trough = v;
      } else if (!up && fell) {
        trough = std::min(trough, v);
      }
    }
  }
  const std::vector<double>& t = s.troughs_bytes;
  if (int(t.size()) >= kGrowthMinTroughs) {
    bool rising = true;
    for (size_t i = 1; i < t.size(); ++i) rising = rising && t[i] > t[i - 1];
    const double growth = t.back() - t.front();
    if (rising && s.peak_bytes > 0 && 100.0 * growth / s.peak_bytes >= kMemoryGrowthPct) {
      s.grows = true;
      s.growth_per_cycle_bytes = growth / double(t.size() - 1);
    }
  }
  // The device: the one GPU with a known memory among the inputs (the timeline names none).
  const Device* gpu = nullptr;
  int gpus = 0;
  for (const Device& d : trace.devices)
    if (d.kind == DeviceKind::kGpu && d.memory_bytes > 0) gpu = &d, ++gpus;
  if (gpus == 1) {
    s.capacity_bytes = double(gpu->memory_bytes);
    s.device = gpu->name.empty() ? "GPU " + std::to_string(gpu->index) : gpu->name;
  }
  return s;
}

}  // namespace stepdoctor
