// step_time_outliers: steps much slower than the median, and whether they recur every N steps
// (checkpointing, evaluation or logging on a schedule).
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {
std::optional<Finding> StepTimeOutliers(const Signals& sig) {
  if (!sig.steps || sig.steps->outlier_steps.empty()) return std::nullopt;
  const StepSignals& s = *sig.steps;
  const std::vector<size_t>& idx = s.outlier_steps;  // steps > kOutlierStepFactor x the median
  double median = s.median_step_ms, total = 0, excess = 0;
  for (double ms : s.step_ms) total += ms;
  for (size_t i : idx) excess += s.step_ms[i] - median;
  if (idx.empty() || total <= 0) return std::nullopt;

  Finding f;
  f.id = "step_time_outliers";
  f.share_pct = 100.0 * excess / total;
  f.severity = f.share_pct >= kOutlierModerateExcessPct ? FindingSeverity::kModerate : FindingSeverity::kLow;
  int64_t period = 0;
  if (idx.size() >= size_t(kMinPeriodicOutliers)) {
    period = s.step_numbers[idx[1]] - s.step_numbers[idx[0]];
    for (size_t k = 2; k < idx.size() && period > 0; ++k)
      if (s.step_numbers[idx[k]] - s.step_numbers[idx[k - 1]] != period) period = 0;
  }
  size_t worst = *std::max_element(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.step_ms[a] < s.step_ms[b]; });
  f.title = period > 0 ? fmt::format("every {} steps a step takes up to {:.1f}x the median ({}): a periodic stall",
                                     period, s.step_ms[worst] / median, Ms(s.step_ms[worst]))
                       : fmt::format("{} of {} steps are slow outliers, the worst {:.1f}x the median ({})", idx.size(),
                                     s.step_count, s.step_ms[worst] / median, Ms(s.step_ms[worst]));
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = GainText(f.gain_upper_bound, "if slow steps ran at the median");
  std::string list;
  for (size_t i : idx) list += fmt::format("{}#{} {}", list.empty() ? "" : ", ", s.step_numbers[i], Ms(s.step_ms[i]));
  f.evidence.push_back({"outlier steps", list});
  f.evidence.push_back({"median / p90 / max step", fmt::format("{} / {} / {}", Ms(median), Ms(s.p90_step_ms), Ms(s.max_step_ms))});
  f.evidence.push_back({"time lost to outliers", fmt::format("{} ({} of step time)", Ms(excess), Pct(f.share_pct))});
  if (period > 0) f.evidence.push_back({"period", fmt::format("every {} steps", period)});
  f.fix.summary = period > 0
                      ? "Something runs on a step schedule: checkpoint, evaluate or log less often, or asynchronously."
                      : "Look at what the slow steps do differently (first-step compilation, data stalls, garbage "
                        "collection, synchronising logging); warm up before measuring.";
  f.fix.tensorflow =
      "# checkpoint less often, and only on the chief worker\n"
      "tf.keras.callbacks.ModelCheckpoint(path, save_freq=5000)\n"
      "tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=5000)\n"
      "model.fit(..., validation_freq=5)                      # evaluate every 5 epochs\n"
      "tf.keras.callbacks.TensorBoard(log_dir, update_freq=1000)";
  f.fix.pytorch =
      "if step % 5000 == 0 and rank == 0:\n"
      "    torch.save(model.state_dict(), path)   # or torch.distributed.checkpoint.async_save\n"
      "# avoid loss.item() every step: it waits for the GPU; log every N steps instead\n"
      "if step % 100 == 0:\n"
      "    log(loss.item())";
  return f;
}

}  // namespace stepdoctor::rules
