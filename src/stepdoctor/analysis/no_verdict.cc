#include "stepdoctor/analysis/no_verdict.h"

#include <fmt/format.h>

#include <algorithm>

#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor {
namespace {

constexpr const char* kLogLonger =
    "log for longer while the job runs (nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used "
    "--format=csv -l 1, or stepdoctor run -- CMD), then diagnose again";

}  // namespace

void SayWhyNoVerdict(const Trace& trace, const ResourceSignals* resources, Report* r) {
  if (r->findings.empty() && trace.EventCount() == 0 && trace.counters.empty() && !trace.scalars.empty()) {
    // Event files alone say what was logged, not where step time goes.
    r->verdict.summary = fmt::format(
        "no profile in the inputs: {} scalar series from TensorBoard event files (`stepdoctor scalars` shows them)",
        trace.scalars.size());
    r->notes.push_back("to see what bounds the step, profile a few steps (tf.profiler.experimental.start/stop, or "
                       "torch.profiler) and diagnose the logdir");
  }
  if (resources && resources->job_samples() < kMinSamples && resources->gpu_runs && trace.EventCount() == 0) {
    // The log holds enough samples, but the job held the GPU in too few of them: in the rest no
    // process was on it, which the log does show.
    double held_s = 0, peak = 0;
    for (const GpuRuns::Run& run : resources->gpu_runs->runs) {
      held_s += run.duration_s;
      peak = std::max(peak, run.util_peak_pct);
    }
    r->verdict.summary = fmt::format(
        "too few samples to judge: a process held the GPU in {} of the log's {} samples ({:.1f} s, utilisation peak "
        "{:.0f}%), under the {} a verdict needs; in the rest no process was on it",
        resources->job_samples(), resources->samples, held_s, peak, kMinSamples);
    r->notes.push_back(kLogLonger);
  }
  if (r->findings.empty() && !resources && trace.EventCount() == 0) {
    // Samples too few to judge are not "nothing to analyse": say how many there are and what a
    // verdict needs.
    if (const int64_t n = MostResourceSamples(trace); n > 0 && n < kMinSamples) {
      r->verdict.summary = fmt::format(
          "too few samples to judge: the input holds at most {} sample{} per utilisation series, under the {} a verdict "
          "needs",
          n, n == 1 ? "" : "s", kMinSamples);
      r->notes.push_back(kLogLonger);
    }
  }
}

}  // namespace stepdoctor
