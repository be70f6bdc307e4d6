// The search of `stepdoctor tune` (docs/tune.md): the baseline run `repeats` times to measure
// the noise, then one knob at a time from the best setting so far (coordinate descent). A value
// whose run falls outside the noise gets a second run, and is called faster (and kept) or slower
// only when both agree. The best combination is re-measured at the end, and every run is fitted
// inside the budget before it starts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/report/tune_report.h"
#include "stepdoctor/tune/knobs.h"
#include "stepdoctor/tune/trial_runner.h"

namespace stepdoctor::tune {

// The smallest half-width of a setting's interval, in % of its throughput: a few baseline runs
// rarely show all of the noise, so a gain below about twice this is never kept. With +/-5%
// uniform noise per run, 31 of 4000 identical pairs got a verdict other than within-noise at 3%
// (124 at 2%, none at 4%); tests/tune/tune_search_test.cc.
inline constexpr double kNoiseFloorPct = 3.0;
// A baseline noisier than this (half-width, %) gets a note: only large changes can be told apart.
inline constexpr double kNoisyBaselinePct = 15.0;
// The least time a run may be given when the budget sets it (--trial-time unset).
inline constexpr int64_t kMinRunLimitNs = 1'000'000'000;
// Time counted per run beyond its limit and the kill grace: polling, reaping, reading event files.
inline constexpr int64_t kRunSlackNs = 250'000'000;
// Default --check-tolerance: how far (fraction of the baseline's value) the check metric may rise.
inline constexpr double kDefaultCheckTolerance = 0.10;

struct TuneOptions {
  std::vector<std::string> command;
  std::vector<Knob> knobs;
  int repeats = 3;                // baseline runs, and re-measurements of the best
  int64_t budget_ns = 0;          // every run must fit inside it
  int64_t run_limit_ns = 0;       // the most one run takes before it is stopped; 0: from the budget
  bool check = false;             // --check-metric given
  double check_tolerance = kDefaultCheckTolerance;
  bool dry_run = false;
  bool profile = false;           // --profile: the baseline's first run is sampled for a diagnosis
  std::string metric, unit;       // for the report
  std::function<void(const std::string& line)> progress;  // one line per run
};

// Runs the search (or only plans it, for dry_run). Errors: arguments the search cannot use (no
// knobs, a budget too small for the baseline and the best's re-measurements), and a baseline
// that does not run (its failure in the message).
Result<TuneReport> RunTune(const TuneOptions& o, TrialRunner& runner);

// The run's check values against the baseline's: "" when fine, else why it diverged. Compared at
// the last value both printed (so runs of different lengths compare the same step); a value
// that is no finite number always diverges.
std::string CheckDivergence(const std::vector<double>& baseline, const std::vector<double>& run, double tolerance);

// `env NAME=value ... argv` as one line a shell reads back (taskset -c first for an affinity).
std::string ShellCommandLine(const TrialSpec& spec);

}  // namespace stepdoctor::tune
