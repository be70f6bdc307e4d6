// periodic_utilisation_dips: the main utilisation series (GPU, else the job's CPU) drops below
// kDipFraction of its median (itself >= kDipBaselineMinPct) at least kDipMinCount times, at
// intervals that vary by at most kDipMaxPeriodCv: checkpoints, evaluation or logging pause
// training on a schedule. Needs the samples' times (a log without them has order only).
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {

std::optional<Finding> PeriodicUtilisationDips(const Signals& sig) {
  if (!sig.resources) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  if (!r.times_known || !r.dips) return std::nullopt;  // a period in seconds needs the samples' times
  const UtilisationDips& d = *r.dips;
  if (d.baseline_pct < kDipBaselineMinPct || d.count < kDipMinCount || !d.period_cv || *d.period_cv > kDipMaxPeriodCv)
    return std::nullopt;
  const double period_s = *d.period_s, mean_s = d.mean_s.value_or(0);  // both known with kDipMinCount dips
  Finding f;
  f.id = "periodic_utilisation_dips";
  f.severity = d.share_pct >= kDipModerateSharePct ? FindingSeverity::kModerate : FindingSeverity::kLow;
  f.share_pct = d.share_pct;
  f.title = fmt::format("{} drops every {:.0f} s for about {:.0f} s ({} of the time): checkpoints or evaluation",
                        d.series, period_s, mean_s, Pct(d.share_pct));
  f.gain_upper_bound = GainIfRemoved(d.share_pct);
  f.gain_text = GainText(f.gain_upper_bound, "if the pauses were overlapped with training or made rarer");
  f.evidence.push_back({"series", fmt::format("{} (median {:.0f})", d.series, d.baseline_pct)});
  f.evidence.push_back({"dips", fmt::format("{} dips below {:.0f}, every {:.1f} s (spacing varies {:.0f}%)", d.count,
                                            d.baseline_pct * kDipFraction, period_s, 100 * *d.period_cv)});
  f.evidence.push_back({"mean dip length", fmt::format("{:.1f} s", mean_s)});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Match the period to what the script does on a schedule (checkpoint, validation, logging) and make it "
      "asynchronous or less frequent.";
  f.fix.tensorflow =
      "ckpt_manager = tf.train.CheckpointManager(ckpt, '/ckpt', max_to_keep=3)\n"
      "options = tf.train.CheckpointOptions(experimental_enable_async_checkpoint=True)\n"
      "ckpt.write('/ckpt/step', options=options)  # training continues while it writes\n"
      "model.fit(..., validation_freq=5)           # validate every 5 epochs, not every epoch";
  f.fix.pytorch =
      "import torch.distributed.checkpoint as dcp\n"
      "future = dcp.async_save(model.state_dict(), checkpoint_id=f'/ckpt/{step}')  # overlaps training\n"
      "if step % eval_every == 0:  # evaluate less often, or on a subset\n"
      "    evaluate(model, val_subset)";
  return f;
}

}  // namespace stepdoctor::rules
