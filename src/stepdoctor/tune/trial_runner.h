// One run of the job under one setting, behind an interface: the search (tune_search) sees only
// what a run measured, so tests hand it a fake runner with known throughputs and costs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/tune/knobs.h"

namespace stepdoctor::tune {

struct TrialRun {
  int64_t wall_ns = 0;         // from start to the last of its processes gone, kill grace included
  bool measured = false;       // a throughput was measured after warm-up
  double throughput = 0;       // the run's throughput (units of the metric), when measured
  int64_t steps = 0;           // steps (or values) measured after warm-up
  std::vector<double> check;   // the --check-metric values, in the order printed
  int exit_code = 0;           // as a shell reports it: 128 + signal when killed
  bool stopped = false;        // tune stopped it (enough steps, or its time limit), not a failure itself
  bool interrupted = false;    // the user stopped tune during this run
  std::string failure;         // why the run is unusable (one line); empty when it is usable
  // A profiled run (TrialSpec::profile): what to diagnose (its samples file, the trace files it
  // wrote under the profile folder), kept until the runner is gone; or why nothing can be.
  std::vector<std::string> profile_inputs;
  std::string profile_note;
};

class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // Runs `spec` for at most `limit_ns` (then stops it, taking at most the runner's kill grace
  // more). REQUIRED: limit_ns > 0.
  virtual TrialRun Run(const TrialSpec& spec, int64_t limit_ns) = 0;
  // The most a run takes past its limit (the stop signal's grace, then SIGKILL).
  virtual int64_t KillGraceNs() const = 0;
};

}  // namespace stepdoctor::tune
