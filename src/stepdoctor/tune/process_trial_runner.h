// The real trial runner: the job as a child in a process group of its own, its output (stdout
// and stderr together) read line by line as it arrives, stopped with SIGTERM to the group at its
// limit or once enough steps are measured, SIGKILL after the grace (live/child_process).
// With a scratch folder each run works in a fresh copy of it; a profiled run is sampled live.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/tune/throughput.h"
#include "stepdoctor/tune/trial_runner.h"

namespace stepdoctor::tune {

// How long a stopped run has, after SIGTERM, before its group is killed.
inline constexpr int64_t kDefaultKillGraceNs = 2'000'000'000;
// Between the live samples of a profiled run.
inline constexpr int64_t kProfileIntervalNs = 250'000'000;
// Where `{SCRATCH}` in the command, the environment, --logdir or the profile folder stands for
// the run's copy of the scratch folder (also given to the job as $STEPDOCTOR_SCRATCH).
inline constexpr const char* kScratchToken = "{SCRATCH}";
inline constexpr const char* kScratchEnv = "STEPDOCTOR_SCRATCH";

struct ProcessRunnerOptions {
  int64_t kill_grace_ns = kDefaultKillGraceNs;
  // --scratch DIR: each run gets its own copy of DIR, made before it starts (the time counts in
  // the run's limit) and removed after it (a profiled run's at the end, once diagnosed).
  std::string scratch;
  // --profile-dir DIR: trace files a profiled run writes under DIR are diagnosed with its samples.
  std::string profile_dir;
  int64_t profile_interval_ns = kProfileIntervalNs;
  bool gpus = true;  // NVML samples in a profiled run
};

class ProcessTrialRunner : public TrialRunner {
 public:
  // REQUIRED: ValidateMetric accepted `metric`; options.scratch, when set, is a folder.
  explicit ProcessTrialRunner(MetricSpec metric, ProcessRunnerOptions options = {})
      : metric_(std::move(metric)), o_(std::move(options)) {}
  // Removes the runner's temporary folder (copies and samples kept for a diagnosis).
  ~ProcessTrialRunner() override;
  ProcessTrialRunner(const ProcessTrialRunner&) = delete;
  ProcessTrialRunner& operator=(const ProcessTrialRunner&) = delete;
  TrialRun Run(const TrialSpec& spec, int64_t limit_ns) override;
  int64_t KillGraceNs() const override { return o_.kill_grace_ns; }

 private:
  // The runner's temporary folder, made on first use; empty with `*why` set when it cannot be.
  std::string TempRoot(std::string* why);
  // The job itself, with the scratch copy already substituted into `spec`.
  TrialRun RunJob(const TrialSpec& spec, int64_t limit_ns, const std::string& logdir, const std::string& profile_dir,
                  int index);

  MetricSpec metric_;
  ProcessRunnerOptions o_;
  std::string temp_root_;
  int runs_ = 0;
};

// `text` with every {SCRATCH} replaced by `scratch`.
std::string SubstituteScratch(const std::string& text, const std::string& scratch);

}  // namespace stepdoctor::tune
