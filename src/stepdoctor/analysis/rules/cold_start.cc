// cold_start: one-off start-up (lazy module loading, cudaFree at context creation, stream and
// event creation: single runtime calls over kOneOffRuntimeNs) takes a large share of the window.
// It is not per-step launch overhead and no graph-capture gain is quoted for it: the advice is to
// profile after warm-up.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> ColdStart(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  double share = s.mean_step_ms > 0 ? 100.0 * s.startup_ms / s.mean_step_ms : 0;
  if (share < kColdWindowStartupPct) return std::nullopt;
  Finding f;
  f.id = "cold_start";
  // Most of the window: the report describes start-up, and the verdict should say so.
  f.severity = share >= kColdStartModeratePct ? FindingSeverity::kModerate : FindingSeverity::kLow;
  f.share_pct = share;
  f.title = fmt::format("{} of the window is one-off start-up: the profile caught a cold first pass", Pct(share));
  f.gain_upper_bound = 1.0;
  f.gain_text = "none per step: start-up is paid once; profile steady-state steps to see what bounds them";
  f.evidence.push_back({fmt::format("one-off start-up (runtime calls over {} ms, device-code loads, first calls far "
                                    "slower than later ones, a first run's slow start)",
                                    kOneOffRuntimeNs / 1'000'000),
                        fmt::format("{} per window ({})", Ms(s.startup_ms), Pct(share))});
  for (size_t i = 0; i < s.startup_events.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.startup_events[i]);
  f.fix.summary = "Profile after warm-up: skip the first iterations, then record a few steady-state steps.";
  f.fix.pytorch =
      "prof = torch.profiler.profile(\n"
      "    activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
      "    schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),\n"
      "    on_trace_ready=torch.profiler.tensorboard_trace_handler('./log'))\n"
      "# call prof.step() at the end of every iteration";
  f.fix.tensorflow =
      "# profile steps 10-15, after tracing and autotuning:\n"
      "tf.keras.callbacks.TensorBoard(log_dir='./log', profile_batch=(10, 15))";
  if (Tf1Session(sig)) f.fix.tensorflow = kTf1TraceWarmRunCode;  // the timeline is one sess.run's
  return f;
}

}  // namespace stepdoctor::rules
