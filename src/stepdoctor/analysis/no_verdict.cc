#include "stepdoctor/analysis/no_verdict.h"

#include <fmt/format.h>

#include <algorithm>

#include "stepdoctor/analysis/horovod_negotiation.h"
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
  if (trace.EventCount() == 0 && r->coverage.device_activity == "memory_timeline") {
    // A memory timeline holds what tensors took, not step times: it cannot say what bounds a step.
    const auto f = std::find_if(r->findings.begin(), r->findings.end(),
                                [](const Finding& x) { return x.id == "memory_composition"; });
    if (f != r->findings.end()) {
      r->verdict.summary = "a memory timeline only: " + f->title;
      r->notes.push_back("a memory timeline holds no step times, so what bounds the step is not in it: diagnose the "
                         "trace recorded with it (prof.export_chrome_trace, or the tensorboard_trace_handler's file) "
                         "beside it for that");
    }
  }
  if (resources && resources->job_samples() < kMinSamples && resources->gpu_runs && trace.EventCount() == 0) {
    // The log holds enough samples, but the job held the GPU in too few of them: in the rest no
    // process was on it, which the log does show.
    double held_s = 0, peak = 0, last_end_s = 0;
    std::optional<double> mem_peak;
    for (const GpuRuns::Run& run : resources->gpu_runs->runs) {
      held_s += run.duration_s;
      peak = std::max(peak, run.util_peak_pct);
      last_end_s = std::max(last_end_s, run.start_s + run.duration_s);
      if (run.mem_peak_bytes) mem_peak = std::max(mem_peak.value_or(0.0), *run.mem_peak_bytes);
    }
    r->verdict.summary = fmt::format(
        "too few samples to judge: a process held the GPU in {} of the log's {} samples ({:.1f} s, utilisation peak "
        "{:.0f}%), under the {} a verdict needs; in the rest no process was on it",
        resources->job_samples(), resources->samples, held_s, peak, kMinSamples);
    // The log went on well after the GPU was released: it did not stop too early, the job
    // stopped using the GPU (it ended, failed while starting, or does its work elsewhere).
    const double after_s = resources->window_s - last_end_s;
    const double interval_s = resources->interval_s > 0 ? resources->interval_s : 1.0;
    if (after_s >= kMinSamples * interval_s && after_s >= held_s) {
      const GpuResource* gpu = nullptr;
      for (const GpuResource& g : resources->gpus)
        if (g.index == resources->gpu_runs->gpu_index) gpu = &g;
      std::string held;
      if (mem_peak && gpu && gpu->mem_total_bytes && *gpu->mem_total_bytes > 0)
        held = fmt::format(", holding up to {:.1f} of {:.1f} GiB ({:.0f}%)", *mem_peak / (1 << 30),
                           *gpu->mem_total_bytes / (1 << 30), 100.0 * *mem_peak / *gpu->mem_total_bytes);
      r->notes.push_back(fmt::format(
          "the log is long enough: it went on for {:.1f} s after the GPU was released. The job held the GPU for "
          "{:.1f} s{}{}, then let it go: it ended, or failed soon after starting (see its exit status and last "
          "output{}), or its work runs elsewhere (another GPU, the CPU). Log again while its steps run",
          after_s, held_s, held, peak < kUnusedGpuPeakPct ? ", and ran no kernel worth a sample" : "",
          mem_peak && gpu && gpu->mem_total_bytes && *mem_peak >= 0.5 * *gpu->mem_total_bytes
              ? ": a job that stops right after taking most of the memory may have run out of it"
              : ""));
    } else {
      r->notes.push_back(kLogLonger);
    }
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

void SayWhenOnlyHorovodStartup(const Trace& trace, WorkerId worker, Report* r) {
  const int64_t n = HorovodStartupBroadcastsOnly(trace, worker);
  if (n == 0) return;
  for (Finding& f : r->findings) f.severity = std::min(f.severity, FindingSeverity::kLow);
  r->verdict.bottleneck = Bottleneck::kUnknown;
  r->verdict.summary = fmt::format(
      "a Horovod timeline of the start-up broadcast only ({} tensor{} of initial weights and optimizer state, sent "
      "once before training): no training step was recorded",
      n, n == 1 ? "" : "s");
  r->coverage.confidence = "low";
  r->coverage.evidence.push_back("only broadcasts were negotiated: the window ends before the first step's all-reduce");
  r->notes.push_back("record the timeline past start-up (HOROVOD_TIMELINE for a few steps, with "
                     "HOROVOD_TIMELINE_MARK_CYCLES=1), then diagnose it");
}

}  // namespace stepdoctor
