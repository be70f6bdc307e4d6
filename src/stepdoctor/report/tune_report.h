// What `stepdoctor tune` measured: the baseline, one trial per setting tried, the best
// combination re-measured. A plain struct the text, JSON, Markdown and HTML renderers print
// (docs/tune.md lists the JSON keys).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

// A setting's throughput: the median of its runs, and the interval the noise allows around it.
struct TuneMeasurement {
  double throughput = 0;
  double low = 0, high = 0;  // throughput x (1 -/+ the noise)
  std::vector<double> runs;  // each run's throughput
};

enum class TuneVerdict {
  kKept,          // faster than the setting it changed, confirmed by a second run: adopted
  kFaster,        // faster, but another value of the same knob was faster still
  kNotConfirmed,  // faster once; the second run was not (or did not fit in the budget)
  kWithinNoise,   // no difference the noise allows telling apart (a second run may have said so)
  kSlower,        // slower than the setting it changed, in both its runs (one, where `why` says so)
  kFailed,        // a run crashed, timed out before measuring, or measured nothing
  kDiverged,      // --check-metric rose past the tolerance (or is no number)
  kSkipped,       // would not fit in the budget, or tune was interrupted before it
  kPlanned,       // --dry-run: not run
};
const char* TuneVerdictName(TuneVerdict v);

struct TuneTrial {
  std::string knob, value;             // the one setting changed, e.g. NUM_WORKERS, 2
  std::string setting;                 // "NUM_WORKERS=2"
  std::vector<std::string> on_top_of;  // settings kept before this trial ("OMP_NUM_THREADS=1")
  TuneVerdict verdict = TuneVerdict::kPlanned;
  std::string why;                     // failed, diverged, skipped, not confirmed: the reason
  bool measured = false;
  TuneMeasurement m;
  // Against the baseline's median, in percent: the change and the interval's ends.
  double change_pct = 0, change_low_pct = 0, change_high_pct = 0;
  int runs = 0;                        // runs made of this setting
};

struct TuneBest {
  std::vector<std::string> settings;   // the kept settings, in order ("NUM_WORKERS=2")
  std::vector<std::pair<std::string, std::string>> env;  // every variable tune sets for it
  std::vector<std::string> argv;
  std::string affinity;                // cpu-affinity value; empty: inherited
  std::string command_line;            // env and argv as one shell line to copy
  bool remeasured = false;             // re-measured at the end (false: it is the baseline)
  TuneMeasurement m;
  double speedup = 1;                  // its throughput over the baseline's
};

// --profile: the diagnosis of the baseline's first run, from its live samples and the traces it
// wrote under the profile folder.
struct TuneProfile {
  bool asked = false;
  int run = 0;                        // which run was profiled (1: the baseline's first)
  double interval_s = 0;              // between samples
  std::vector<std::string> inputs;    // what was diagnosed: the samples file, trace files
  std::string note;                   // why there is no diagnosis, or what it lacks
  std::optional<Report> diagnosis;    // the report `diagnose` gives on `inputs`
};

struct TuneReport {
  std::vector<std::string> command;
  std::string metric;                  // how throughput was measured, one line
  std::string unit;                    // "steps/s", or what the printed value counts
  std::vector<std::string> knobs;      // "NUM_WORKERS: 0 (baseline), 2, 4"
  bool dry_run = false;
  int repeats = 0;                     // baseline runs (and re-measurements of the best)
  double budget_s = 0, used_s = 0;
  double run_limit_s = 0;              // the most one run may take before it is stopped
  int runs_done = 0, runs_planned = 0;
  double noise_pct = 0;                // the interval's half-width, % of the throughput
  double confidence_pct = 0;           // of the baseline's interval from its repeats (MedianRangeConfidence)
  TuneMeasurement baseline;
  std::vector<TuneTrial> trials;
  bool have_best = false;
  TuneBest best;
  std::vector<std::string> notes;
  TuneProfile profile;
};

}  // namespace stepdoctor
