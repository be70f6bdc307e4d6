// unrecorded_device_work: the host blocks on the device (synchronize calls, blocking copies) for
// much of the step while the trace shows the device idle. Something ran there that the trace does
// not hold: device work launched before the window began (a capture that starts mid-step, an
// excerpt), records the device tracer dropped, or another process's work on the same GPU. No
// bottleneck is named from so partial a record; the advice is to record whole steps.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {
std::optional<Finding> UnrecordedDeviceWork(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0 || sig.steps->cpu_only || sig.steps->device_missing) return std::nullopt;
  const StepSignals& s = *sig.steps;
  const double share = s.mean_step_ms > 0 ? 100.0 * s.sync_wait_ms / s.mean_step_ms : 0;
  if (share < kUnrecordedDeviceWorkPct) return std::nullopt;
  Finding f;
  f.id = "unrecorded_device_work";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("the host waits on the device {} of {} while the trace shows the device idle: work it ran then "
                        "is not recorded",
                        Pct(share), EachStep(s));
  f.gain_upper_bound = 1.0;
  f.gain_text = "unknown until the device's work in those waits is recorded";
  f.evidence.push_back({"host blocked on the device (synchronize calls, blocking copies), nothing recorded running",
                        fmt::format("{} {} ({})", Ms(s.sync_wait_ms), PerStep(s), Pct(share))});
  f.evidence.push_back({"device busy during steps", Pct(s.device_busy_pct)});
  if (!s.has_steps)
    f.evidence.push_back({"window", "no step markers: a capture that starts or ends mid-step leaves out device work "
                                    "launched outside it"});
  // Work launched before the window (an earlier cell or loop that did not wait for the device)
  // still runs when the window opens: waiting for it first keeps it out.
  const StepLoop loop = StepLoopOf(sig);
  f.fix.summary = "Record whole " + loop.steps + " with the device tracer on from the first launch: wait for the "
                  "device before the profiler starts (work launched earlier, e.g. by a previous loop or cell, otherwise "
                  "runs inside the window unrecorded), start and stop it at step boundaries, with nothing else holding "
                  "the GPU's tracing interface, then diagnose again.";
  f.fix.pytorch =
      "torch.cuda.synchronize()   # nothing launched earlier still running when the window opens\n"
      "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
      "        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),\n"
      "        on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as prof:\n" +
      loop.Code(4) + "; prof.step()   # steps start and end inside the recorded window";
  f.fix.tensorflow =
      "tf.keras.callbacks.TensorBoard(log_dir='./log', profile_batch=(10, 15))  # whole steps, device tracer on";
  return f;
}

}  // namespace stepdoctor::rules
