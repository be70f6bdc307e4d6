// The plain result of comparing two runs (`stepdoctor diff BEFORE AFTER`): what every diff
// renderer (text, json, md, html) prints. analysis/reports_to_diff fills it; renderers never
// compute. Times are milliseconds, shares percent (0-100), changes after minus before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

inline constexpr int kDiffSchemaVersion = 1;
// A finding whose share of the step fell to at most this fraction of what it was (or that is
// gone) counts as fixed, so its prediction is checked against the after side.
inline constexpr double kFixAppliedShareRatio = 0.5;

// One side of the comparison, summarised from its Report.
struct DiffSide {
  std::vector<std::string> inputs;
  std::string format;
  Verdict verdict;
  std::string step_source;   // StepSummary::source
  bool whole_window = false; // no step markers: the window is one "step"
  int step_count = 0;
  double median_step_ms = 0;
  double mean_step_ms = 0;
  double p90_step_ms = 0;
  double min_step_ms = 0, max_step_ms = 0;  // the steps' own spread
};

struct CategoryDelta {      // one step-time category, before and after
  std::string category;     // input, kernel_launch, host_compute, ...
  double before_ms = 0, after_ms = 0, delta_ms = 0;     // ms per step
  double before_pct = 0, after_pct = 0, delta_pp = 0;   // share of step time; change in points
  std::optional<double> change_pct;                     // delta_ms / before_ms; absent when before is 0
};

struct FindingDelta {       // a finding id present on either side
  std::string id;
  std::optional<FindingSeverity> before, after;  // absent: not reported on that side
  double before_share_pct = 0, after_share_pct = 0;
  std::string after_title;  // the after side's title, else the before side's
};

// A prediction the before side made for a fix the after side shows applied (its finding gone, or
// its share of the step at most half what it was): predicted against measured.
struct PredictionCheck {
  std::string finding;               // the before side's finding id
  std::string fix;                   // the fix predicted ("input", "launch", ...)
  double predicted_step_ms = 0, low_ms = 0, high_ms = 0;  // the before side's prediction (mean step)
  double measured_step_ms = 0;       // the after side's mean step
  double measured_median_ms = 0;     // and its median
  double error_pct = 0;              // (predicted - measured mean) / measured mean
  bool within_range = false;         // measured mean inside [low, high]
};

struct NameDelta {          // one kernel or op name, before and after
  std::string name;
  double before_ms = 0, after_ms = 0, delta_ms = 0;  // per step when DiffReport::per_step, else totals
  double before_count = 0, after_count = 0;          // likewise
  std::optional<double> change_pct;                  // delta_ms / before_ms; absent when added
};

struct NameChanges {        // kernels (device time) or ops (host time), sorted by |delta_ms|
  std::vector<NameDelta> added, removed, slower, faster;
  // How many names fell in each group before the lists were cut to DiffOptions::max_rows.
  int added_total = 0, removed_total = 0, slower_total = 0, faster_total = 0;
  double before_total_ms = 0, after_total_ms = 0;    // summed over every name (per step or total)
};

struct DiffReport {
  int schema_version = kDiffSchemaVersion;
  std::string tool_version;
  DiffSide before, after;
  double step_delta_ms = 0;                // after median step minus before median step
  std::optional<double> step_change_pct;   // step_delta_ms / before median; absent when before is 0
  std::optional<double> speedup;           // before median / after median; absent when after is 0
  bool verdict_changed = false;
  std::vector<CategoryDelta> categories;   // the before side's order, then categories new in after
  std::vector<FindingDelta> findings;      // the before side's ranking, then findings new in after
  std::vector<PredictionCheck> predictions;  // before's predictions whose fix after shows applied
  // Kernel and op figures: per step when both sides have step markers and their counts differ,
  // else totals over each trace.
  bool per_step = false;
  std::string unit;                        // "ms/step" or "ms": what NameDelta's _ms fields hold
  NameChanges kernels, ops;
  std::vector<std::string> notes;          // what the comparison could not do, one line each
  std::vector<std::string> diagnostics;    // both sides' diagnostics, prefixed "before: "/"after: "
};

}  // namespace stepdoctor
