// The real trial runner: the job as a child in a process group of its own, its output (stdout
// and stderr together) read line by line as it arrives, stopped with SIGTERM to the group at its
// limit or once enough steps are measured, SIGKILL after the grace (live/child_process).
#pragma once

#include <cstdint>

#include "stepdoctor/tune/throughput.h"
#include "stepdoctor/tune/trial_runner.h"

namespace stepdoctor::tune {

// How long a stopped run has, after SIGTERM, before its group is killed.
inline constexpr int64_t kDefaultKillGraceNs = 2'000'000'000;

class ProcessTrialRunner : public TrialRunner {
 public:
  // REQUIRED: ValidateMetric accepted `metric`.
  explicit ProcessTrialRunner(MetricSpec metric, int64_t kill_grace_ns = kDefaultKillGraceNs)
      : metric_(std::move(metric)), grace_ns_(kill_grace_ns) {}
  TrialRun Run(const TrialSpec& spec, int64_t limit_ns) override;
  int64_t KillGraceNs() const override { return grace_ns_; }

 private:
  MetricSpec metric_;
  int64_t grace_ns_;
};

}  // namespace stepdoctor::tune
