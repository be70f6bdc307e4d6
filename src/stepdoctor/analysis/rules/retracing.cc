// retracing: a tf.function is traced again and again (new Python values or shapes each call),
// paying graph construction inside the training loop.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> Retracing(const Signals& sig) {
  if (!sig.tf || sig.tf->retraced.empty()) return std::nullopt;
  const TfSignals& s = *sig.tf;
  const TfRetrace& top = s.retraced.front();
  if (top.traces < kRetraceMinTraces) return std::nullopt;
  double trace_ms = 0;
  for (const auto& r : s.retraced) trace_ms += r.trace_ms;
  double window_ms = s.step_ms * std::max(1, s.step_count);
  double share = window_ms > 0 ? std::min(100.0, 100.0 * trace_ms / window_ms) : 0;
  Finding f;
  f.id = "retracing";
  f.severity = top.traces >= kRetraceHighTraces ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("tf.function {} was traced {} times in {} calls", top.function, top.traces, top.calls);
  f.gain_upper_bound = GainIfRemoved(share);
  f.gain_text = GainText(f.gain_upper_bound, "if no call had to trace again");
  for (const auto& r : s.retraced) {
    f.evidence.push_back({r.function, fmt::format("{} traces in {} calls, {} in tracing calls", r.traces, r.calls, Ms(r.trace_ms))});
    f.top_events.push_back({r.function, r.trace_ms, r.traces, window_ms > 0 ? 100.0 * r.trace_ms / window_ms : 0});
    if (f.top_events.size() >= kTopRowsShown) break;
  }
  f.fix.summary = "Give the function an input_signature with None for sizes that vary, pass tensors instead of Python "
                  "numbers, or let TensorFlow generalise shapes with reduce_retracing=True.";
  f.fix.tensorflow =
      "@tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])   # any batch size / length\n"
      "def train_step(tokens): ...\n"
      "# or: @tf.function(reduce_retracing=True)\n"
      "# and call with tensors: train_step(tf.constant(lr)) rather than train_step(0.01)";
  f.fix.pytorch =
      "model = torch.compile(model, dynamic=True)   # one graph for varying shapes\n"
      "torch._dynamo.mark_dynamic(batch, 0)       # or mark the varying dimension explicitly";
  return f;
}

}  // namespace stepdoctor::rules
