// periodic_stall: the event files show long gaps every N steps, the signature of checkpointing
// or evaluation that stops training.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> PeriodicStall(const Signals& sig) {
  if (!sig.tf) return std::nullopt;
  const EventStallRun* worst = nullptr;
  for (const auto& r : sig.tf->stalls)
    if (r.period_steps > 0 && r.stall_share_pct >= kPeriodicStallMinSharePct &&
        (!worst || r.stall_share_pct > worst->stall_share_pct))
      worst = &r;
  if (!worst) return std::nullopt;
  const EventStallRun& r = *worst;
  double excess = 0, max_gap = 0;
  for (const auto& st : r.stalls) {
    excess += st.excess_s;
    max_gap = std::max(max_gap, st.gap_s);
  }
  Finding f;
  f.id = "periodic_stall";
  f.severity = r.stall_share_pct >= kPeriodicStallHighSharePct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = r.stall_share_pct;
  f.title = fmt::format("Training stalls every {} steps (run {}): {} of wall time, likely checkpointing or evaluation",
                        r.period_steps, r.run, Pct(r.stall_share_pct));
  f.gain_upper_bound = GainIfRemoved(r.stall_share_pct);
  f.gain_text = GainText(f.gain_upper_bound, "in wall time if the stalls were removed");
  f.evidence.push_back({"stalls", fmt::format("{} gaps, every {} steps, {:.1f} s lost in total", r.stalls.size(), r.period_steps, excess)});
  f.evidence.push_back({"longest gap", fmt::format("{:.1f} s (typical {:.3f} s per step)", max_gap, r.seconds_per_step)});
  f.evidence.push_back({"steps logged", fmt::format("{} to {} over {:.0f} s ({:.2f} steps/s)", r.first_step, r.last_step, r.wall_s, r.steps_per_second)});
  for (size_t i = 0; i < r.stalls.size() && i < kTopRowsShown; ++i)
    f.top_events.push_back({fmt::format("gap before step {}", r.stalls[i].step), r.stalls[i].gap_s * 1000, 1,
                            r.wall_s > 0 ? 100.0 * r.stalls[i].excess_s / r.wall_s : 0});
  f.fix.summary = "Checkpoint and evaluate less often or asynchronously, and only on the chief worker; keep "
                  "fault-tolerance with BackupAndRestore at a frequency that pays for itself.";
  f.fix.tensorflow =
      "callbacks = [\n"
      "    tf.keras.callbacks.ModelCheckpoint(path, save_weights_only=True, save_freq=10 * steps_per_epoch),\n"
      "    tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=\"epoch\"),\n"
      "]\n"
      "model.fit(ds, validation_data=val_ds, validation_freq=5, callbacks=callbacks)\n"
      "# MultiWorker: write real checkpoints on the chief only; other workers write to a temp dir\n"
      "ckpt.write(path, options=tf.train.CheckpointOptions(experimental_enable_async_checkpoint=True))";
  f.fix.pytorch =
      "if dist.get_rank() == 0:   # one writer\n"
      "    torch.distributed.checkpoint.async_save(state_dict, checkpoint_id=path)\n"
      "# and evaluate every N epochs, not every epoch";
  return f;
}

}  // namespace stepdoctor::rules
