// low_precision: a GPU with TensorCores spends most of its kernel time in 32-bit kernels.
// bf16 kernels count as 16-bit (TensorFlow's own profiler counts only fp16).
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> LowPrecision(const Signals& sig) {
  if (!sig.tf || !sig.tf->has_gpu_kernels || !sig.tf->tensor_core_capable || sig.tf->step_ms <= 0) return std::nullopt;
  const TfSignals& s = *sig.tf;
  double kernel_share = 100.0 * s.kernel_ms_per_step / s.step_ms;
  double pct16 = s.kernel_ms_per_step > 0 ? 100.0 * s.kernel_16bit_ms_per_step / s.kernel_ms_per_step : 0;
  if (kernel_share < kLowPrecisionMinKernelSharePct || pct16 >= kLowPrecisionMax16BitPct) return std::nullopt;
  double fp32_share = 100.0 * (s.kernel_ms_per_step - s.kernel_16bit_ms_per_step) / s.step_ms;
  Finding f;
  f.id = "low_precision";
  f.severity = fp32_share >= kLowPrecisionHighFp32SharePct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = fp32_share;
  f.title = fmt::format("Only {} of GPU kernel time is 16-bit on a TensorCore GPU; fp32 kernels take {} of the step",
                        Pct(pct16), Pct(fp32_share));
  f.gain_upper_bound = 1.0 / (1.0 - std::min(0.99, fp32_share / 100.0 * (1.0 - 1.0 / kLowPrecisionAssumedSpeedup)));
  f.gain_text = GainText(f.gain_upper_bound, "if the fp32 kernels ran twice as fast in mixed precision (an estimate)");
  f.evidence.push_back({"kernel time per step", fmt::format("{} ({} of the step)", Ms(s.kernel_ms_per_step), Pct(kernel_share))});
  f.evidence.push_back({"16-bit kernels (fp16 and bf16)", Pct(pct16)});
  f.evidence.push_back({"TensorCore kernels", Pct(s.kernel_ms_per_step > 0 ? 100.0 * s.kernel_tensor_core_ms_per_step / s.kernel_ms_per_step : 0)});
  f.top_events = s.top_fp32_kernels;
  f.fix.summary = "Turn on mixed precision: compute in float16 (bfloat16 on Ampere and newer) with float32 variables, "
                  "and keep the output layer in float32.";
  f.fix.tensorflow =
      "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")   # \"mixed_bfloat16\" on A100/H100\n"
      "outputs = tf.keras.layers.Activation(\"softmax\", dtype=\"float32\")(logits)   # output layer in float32\n"
      "# custom loops: optimizer = tf.keras.mixed_precision.LossScaleOptimizer(optimizer)";
  f.fix.pytorch =
      "scaler = torch.cuda.amp.GradScaler()\n"
      "with torch.autocast(device_type=\"cuda\", dtype=torch.float16):   # or torch.bfloat16, without the scaler\n"
      "    loss = loss_fn(model(x), y)\n"
      "scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()";
  return f;
}

}  // namespace stepdoctor::rules
