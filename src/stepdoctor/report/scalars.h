// The plain result of `stepdoctor scalars`: what TensorBoard event files logged, per run and tag,
// and the stalls each run's wall times show. analysis/scalars_to_summary fills it; every
// scalars renderer (text, json, md) prints it and computes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepdoctor {

inline constexpr int kScalarsSchemaVersion = 1;

// Where a tag's values went over the last half of its points.
enum class ScalarTrend {
  kTooFewPoints,  // under 4 points: no trend
  kFlat,
  kFalling,
  kRising,
};
const char* ScalarTrendName(ScalarTrend t);  // "too_few_points", "flat", "falling", "rising"

struct ScalarTagSummary {
  std::string run;  // the event file's folder relative to the logdir ("train", "validation")
  std::string tag;
  int64_t count = 0;
  int64_t first_step = 0, last_step = 0;
  double last_value = 0;
  double min_value = 0;
  double max_value = 0;
  ScalarTrend trend = ScalarTrend::kTooFewPoints;
  // Least-squares change over the last half of the points, % of their mean; absent when there
  // are too few points or the mean is 0.
  std::optional<double> trend_change_pct;
  // Steps per second of wall time, first to last point; absent when the wall clock did not move.
  std::optional<double> steps_per_second;
};

struct ScalarStall {
  int64_t step = 0;     // the first step logged after the gap
  double gap_s = 0;     // wall time of the gap
  double excess_s = 0;  // gap minus the expected time for its steps
};

// One run with enough logged points to have a typical time per step.
struct ScalarRunStalls {
  std::string run;
  int64_t first_step = 0, last_step = 0;
  double seconds_per_step = 0;  // median
  double steps_per_second = 0;  // over the whole run, stalls included
  double wall_s = 0;            // first to last logged point
  std::vector<ScalarStall> stalls;
  double lost_s = 0;            // sum of the stalls' excess
  double stall_share_pct = 0;   // lost_s, % of wall_s
  int64_t period_steps = 0;     // > 0 when the stalls recur every N steps (checkpoint, evaluation)
};

struct ScalarsSummary {
  int schema_version = kScalarsSchemaVersion;
  std::vector<std::string> inputs;   // files read
  std::vector<ScalarTagSummary> tags;  // sorted by run, then tag
  std::vector<ScalarRunStalls> runs;   // sorted by run
  double stall_factor = 0;           // a stall is a gap this many times the median step time
  std::vector<std::string> notes;    // damaged or truncated event files: what was skipped
};

}  // namespace stepdoctor
