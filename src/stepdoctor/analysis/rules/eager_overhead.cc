// eager_overhead: a large share of the step runs TensorFlow ops eagerly (op by op from Python)
// instead of as a graph.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> EagerOverhead(const Signals& sig) {
  if (!sig.tf || sig.tf->step_ms <= 0) return std::nullopt;
  const TfSignals& s = *sig.tf;
  double share = 100.0 * s.eager_op_ms_per_step / s.step_ms;
  if (s.eager_ops < kEagerMinOps || share < kEagerMinSharePct) return std::nullopt;
  Finding f;
  f.id = "eager_overhead";
  f.severity = share >= kEagerHighSharePct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("{} of {} runs TensorFlow ops eagerly, one Python dispatch per op", Pct(share),
                        EachStepNoun(sig.steps));
  f.gain_upper_bound = GainIfRemoved(share);
  f.gain_text = GainText(f.gain_upper_bound, "if the eager op time vanished (graph ops still run, so expect less)");
  f.evidence.push_back({"eager ops per step", fmt::format("{} ({} of host op time)", Ms(s.eager_op_ms_per_step),
                                                          Pct(s.host_op_ms_per_step > 0 ? 100.0 * s.eager_op_ms_per_step / s.host_op_ms_per_step : 0))});
  f.evidence.push_back({"eager op calls", fmt::format("{} of {} host ops", s.eager_ops, s.host_ops)});
  f.top_events = s.top_eager_ops;
  f.fix.summary = "Wrap the training step in tf.function (with a fixed input_signature) so it runs as one graph; "
                  "add jit_compile=True to fuse ops with XLA.";
  f.fix.tensorflow =
      "@tf.function(jit_compile=True, input_signature=[\n"
      "    tf.TensorSpec([None, 224, 224, 3], tf.float32), tf.TensorSpec([None], tf.int64)])\n"
      "def train_step(x, y):\n"
      "    with tf.GradientTape() as tape:\n"
      "        loss = loss_fn(y, model(x, training=True))\n"
      "    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))\n"
      "    return loss\n"
      "# Keras: model.compile(..., run_eagerly=False, jit_compile=True, steps_per_execution=32)";
  f.fix.pytorch = "model = torch.compile(model)   # capture the step as a graph instead of op-by-op dispatch";
  return f;
}

}  // namespace stepdoctor::rules
