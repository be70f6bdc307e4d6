// untraced_time: much of each step is host time with nothing recorded (gaps of kUntracedGapNs or
// more inside a step while the device idles): Python the profiler did not record, a trace that
// records only some activity (communication phases, driver calls), or time outside the traced
// process. No bottleneck is named: the advice is to record what runs there.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> UntracedTime(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  // A window in which nothing launched device work holds set-up or a wait, not a step: what its
  // gaps hide is no step's time, and device_activity_missing already says to profile steps.
  if (s.device_missing && s.device_nothing_launched) return std::nullopt;
  double share = s.mean_step_ms > 0 ? 100.0 * s.untraced_host_ms / s.mean_step_ms : 0;
  if (share < kUntracedModeratePct) return std::nullopt;
  Finding f;
  f.id = "untraced_time";
  f.severity = share >= kUntracedHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("{} of {} has nothing recorded: host time the trace does not explain", Pct(share),
                        EachStep(s));
  f.gain_upper_bound = 1.0;
  f.gain_text = "unknown until what runs there is recorded";
  f.evidence.push_back({UntracedGapsLabel(s, kUntracedGapNs / 1'000'000),
                        fmt::format("{} {} ({})", Ms(s.untraced_host_ms), PerStep(s), Pct(share))});
  f.evidence.push_back(StepsMeasured(s));
  f.fix.summary = "Record what runs in those gaps: Python call stacks and named ranges around data preparation, "
                  "evaluation and logging; then diagnose again.";
  // A CPU-only trace records a job with no accelerator: its profiler asks for CPU activity alone.
  f.fix.pytorch =
      std::string(s.cpu_only ? "with torch.profiler.profile(activities=[ProfilerActivity.CPU],\n"
                             : "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n") +
      "                            with_stack=True) as prof:   # Python frames too\n"
      "    with torch.profiler.record_function(\"prepare_batch\"):\n"
      "        batch = prepare(batch)";
  f.fix.tensorflow =
      "with tf.profiler.experimental.Trace(\"prepare_batch\", step_num=step):\n"
      "    batch = prepare(batch)\n"
      "# and python tracing: tf.profiler.experimental.ProfilerOptions(python_tracer_level=1)";
  // A Horovod timeline records Horovod's own phases alone: between them run the framework's
  // passes, which no Python stack in this file could show; the framework's profiler does.
  if (sig.framework == Framework::kHorovod) {
    f.title += " (a Horovod timeline records only Horovod's own phases: the framework's work between them is not in it)";
    f.fix.summary = "Profile the training steps with the framework's profiler while Horovod writes its timeline "
                    "(HOROVOD_TIMELINE), then diagnose the profile: it holds the forward and backward passes the "
                    "timeline leaves out.";
    f.fix.tensorflow =
        "# HOROVOD_TIMELINE=/tmp/horovod_timeline.json horovodrun -np N python train.py, and in train.py:\n"
        "tf.profiler.experimental.start('./log')\n"
        "# ... a few training steps ...\n"
        "tf.profiler.experimental.stop()   # then: stepdoctor diagnose ./log";
    f.fix.pytorch =
        "# HOROVOD_TIMELINE=/tmp/horovod_timeline.json horovodrun -np N python train.py, and in train.py:\n"
        "with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),\n"
        "        on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as prof:\n"
        "    for step, batch in enumerate(loader):\n"
        "        train_step(batch); prof.step()   # then: stepdoctor diagnose ./log";
  }
  // torch.compile in use, and each kernel Inductor generated ran once, in a window of one region:
  // the window holds the compiled model's first call, and its unrecorded host time is Dynamo and
  // Inductor compiling (Python the profiler records no operator for).
  const AppliedOptimizations* a = sig.applied;
  if (a && a->triton_names > 0 && a->triton_kernels == a->triton_names && s.step_count == 1) {
    f.title = fmt::format("{} of {} has nothing recorded: most likely torch.compile compiling the model's first call "
                          "({} generated kernel{}, each run once)",
                          Pct(share), EachStep(s), a->triton_names, a->triton_names == 1 ? "" : "s");
    f.evidence.push_back({"compiled kernels", fmt::format("{} generated by Inductor (triton_*), each run once: the "
                                                          "window holds the compiled code's first call",
                                                          a->triton_names)});
    f.fix.summary = "The window is the compiled model's first call, most of it torch.compile compiling: call the "
                    "compiled model a few times before profiling (or skip those steps with the profiler's schedule), "
                    "then profile the calls after.";
    f.fix.pytorch =
        "model = torch.compile(model)\n"
        "for _ in range(3): model(batch)   # compile and warm up outside the profiled window\n"
        "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:\n"
        "    for _ in range(5): model(batch)\n"
        "torch.cuda.synchronize()";
    f.fix.tensorflow.clear();
  }
  return f;
}

}  // namespace stepdoctor::rules
