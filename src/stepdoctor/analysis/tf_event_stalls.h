// ScalarSeries (TensorBoard event files) -> per-run step rate and stalls: the wall-clock gaps
// between logged steps that are much longer than the run's typical time per step. Stalls that
// recur every N steps are checkpointing or evaluation cost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

inline constexpr double kStallFactor = 3.0;       // a gap >= 3x the median time per step is a stall
inline constexpr double kStallMinSeconds = 1.0;   // ... and costs at least 1 s more than expected
inline constexpr int kStallMinIntervals = 6;      // fewer logged intervals: no median to trust
inline constexpr int kPeriodicMinStalls = 3;      // this many stalls at a regular step spacing: periodic
inline constexpr double kPeriodTolerance = 0.15;  // spacing within 15% of the median spacing

struct EventStall {
  int64_t step = 0;        // the first step logged after the gap
  double gap_s = 0;        // wall time of the gap
  double excess_s = 0;     // gap minus the expected time for its steps
};

struct EventStallRun {
  std::string run;
  int64_t first_step = 0, last_step = 0;
  int intervals = 0;               // consecutive logged points used
  double seconds_per_step = 0;     // median
  double steps_per_second = 0;     // over the whole run, stalls included
  double wall_s = 0;               // first to last logged point
  std::vector<EventStall> stalls;
  int64_t period_steps = 0;        // > 0 when the stalls recur every N steps
  double stall_share_pct = 0;      // excess time of all stalls, % of wall_s
};

// One entry per run with enough logged points (every tag of a run shares its clock).
std::vector<EventStallRun> ScalarsToEventStalls(const std::vector<ScalarSeries>& scalars);

}  // namespace stepdoctor
