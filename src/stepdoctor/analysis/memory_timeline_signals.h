// What a PyTorch memory timeline (importers/memory_timeline) says: the peak of the memory its
// tensors held, what each category held at that peak, and whether the memory left held between
// iterations grows. Read from the category series (model/series_names.h), never from events.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/model/series_names.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Cycles: the total rises past kCycleHighFraction of the way from its lowest to its peak and
// falls back under kCycleLowFraction (an iteration's activations made and freed).
inline constexpr double kCycleHighFraction = 0.6;
inline constexpr double kCycleLowFraction = 0.3;
// The memory held between cycles grows: rises at every trough of at least three, by
// kMemoryGrowthPct of the peak or more in all (a reference kept from each iteration).
inline constexpr int kGrowthMinTroughs = 3;
inline constexpr double kMemoryGrowthPct = 5.0;

struct MemoryTimelineSignals {
  std::string source;                  // the timeline's file
  int64_t points = 0;                  // its times
  double window_s = 0;                 // from its first time to its last
  using ByCategory = std::array<double, series::kMemoryCategoryCount>;
  double peak_bytes = 0;               // the most all categories held at once
  double peak_at_s = 0;                // when, from the first time
  ByCategory at_peak{};                // each category then
  double lowest_bytes = 0;             // the least held after the first time
  ByCategory at_end{};                 // each category at the last time
  int cycles = 0;                      // rises and falls of the total (iterations)
  std::vector<double> troughs_bytes;   // the least held between consecutive cycles
  bool grows = false;                  // troughs rise at each of >= kGrowthMinTroughs, >= kMemoryGrowthPct in all
  double growth_per_cycle_bytes = 0;   // with grows: (last trough - first) / (troughs - 1)
  // The device the timeline belongs to, where the inputs say: the one GPU of a trace read beside
  // it whose memory is known (the timeline names none); 0 where unknown.
  double capacity_bytes = 0;
  std::string device;
};

// Empty where the trace holds no memory timeline.
std::optional<MemoryTimelineSignals> TraceToMemoryTimeline(const Trace& trace);

}  // namespace stepdoctor
