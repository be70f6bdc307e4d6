// step_time_outliers: steps much slower than the median, whether they recur every N steps
// (checkpointing, evaluation or logging on a schedule), and what the slow steps do that the
// others do not: the step category holding their extra time, the operators only they run. An
// optimizer update found only in the slow steps is gradient accumulation: work, not a stall.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
namespace {

// The category holding most of the slow steps' extra time (their mean over the other steps'),
// and that extra ms per slow step; kCount_ where the per-step breakdown is absent.
std::pair<StepCategory, double> ExtraTimeCategory(const StepSignals& s, double* extra_per_slow_ms) {
  *extra_per_slow_ms = 0;
  const size_t n = s.per_step_category_ms.size();
  if (n != s.step_ms.size() || s.outlier_steps.empty() || s.outlier_steps.size() >= n) return {StepCategory::kCount_, 0};
  std::vector<bool> slow(n, false);
  for (size_t i : s.outlier_steps) slow[i] = true;
  const double n_slow = double(s.outlier_steps.size()), n_other = double(n) - n_slow;
  StepCategory best = StepCategory::kCount_;
  double best_ms = 0;
  for (int c = 0; c < kStepCategoryCount; ++c) {
    double in_slow = 0, in_other = 0;
    for (size_t w = 0; w < n; ++w) (slow[w] ? in_slow : in_other) += s.per_step_category_ms[w][c];
    const double extra = in_slow / n_slow - in_other / n_other;
    if (extra > 0) *extra_per_slow_ms += extra;
    if (extra > best_ms) {
      best_ms = extra;
      best = StepCategory(c);
    }
  }
  return {best, best_ms};
}

// The longest run of outliers evenly spaced by a period of kMinOutlierPeriodSteps or more, with
// no step of the run's period missing across the whole window (the step before its first and
// the one after its last lie outside the steps): a schedule, whatever other outliers noise adds.
// Empty where no run of kMinPeriodicOutliers holds at least kOutlierCauseShare of the excess.
struct Schedule {
  int64_t period = 0;
  std::vector<size_t> members;  // indices into the steps
};
Schedule ScheduleOf(const StepSignals& s, const std::vector<size_t>& idx, double median, double excess) {
  Schedule best;
  double best_excess = 0;
  if (idx.size() < size_t(kMinPeriodicOutliers) || s.step_numbers.empty()) return best;
  const auto [lo, hi] = std::minmax_element(s.step_numbers.begin(), s.step_numbers.end());
  const int64_t first_step = *lo, last_step = *hi;
  // Outliers by step number, to follow a progression.
  std::vector<std::pair<int64_t, size_t>> by_number;
  for (size_t i : idx) by_number.push_back({s.step_numbers[i], i});
  std::sort(by_number.begin(), by_number.end());
  auto find = [&](int64_t n) -> const size_t* {
    auto it = std::lower_bound(by_number.begin(), by_number.end(), std::make_pair(n, size_t(0)));
    return it != by_number.end() && it->first == n ? &it->second : nullptr;
  };
  // Step numbers the window holds (joined profiling cycles leave gaps: a term there is unseen).
  std::vector<int64_t> numbers = s.step_numbers;
  std::sort(numbers.begin(), numbers.end());
  auto is_step = [&](int64_t n) { return std::binary_search(numbers.begin(), numbers.end(), n); };
  // Consecutive terms of a schedule are consecutive outliers but for noise between them.
  for (size_t a = 0; a < by_number.size(); ++a) {
    for (size_t b = a + 1; b < by_number.size() && b <= a + kOutlierScheduleLookahead; ++b) {
      const int64_t start = by_number[a].first, period = by_number[b].first - start;
      if (period < kMinOutlierPeriodSteps || start - period >= first_step) continue;  // must start in the first period
      Schedule run;
      run.period = period;
      int64_t n = start;
      for (; n <= last_step; n += period) {
        const size_t* i = find(n);
        if (i) run.members.push_back(*i);
        else if (is_step(n)) break;  // a step of the schedule that is not slow
      }
      if (n <= last_step || run.members.size() < size_t(kMinPeriodicOutliers)) continue;  // a term missing
      double run_excess = 0;
      for (size_t i : run.members) run_excess += s.step_ms[i] - median;
      if (run_excess < kOutlierCauseShare * excess) continue;
      if (run.members.size() > best.members.size() || (run.members.size() == best.members.size() && run_excess > best_excess)) {
        best = std::move(run);
        best_excess = run_excess;
      }
    }
  }
  return best;
}

}  // namespace

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
  Schedule schedule = ScheduleOf(s, idx, median, excess);
  size_t worst = *std::max_element(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.step_ms[a] < s.step_ms[b]; });
  // An optimizer update only slow steps run, in steps that hold most of the excess: the other
  // steps accumulate gradients. Its steps set the period (noise may make other steps slow too).
  const SlowOnlyEvent* update = nullptr;
  for (const SlowOnlyEvent& e : s.slow_only_events)
    if (e.optimizer_update) {
      update = &e;
      break;
    }
  double update_excess = 0;
  if (update)
    for (size_t i : update->steps) update_excess += s.step_ms[i] - median;
  const bool accumulation = update && update_excess >= kOutlierCauseShare * excess;
  if (accumulation) schedule = ScheduleOf(s, update->steps, median, update_excess);
  const int64_t period = schedule.period;
  double extra_ms = 0;
  auto [cause, cause_ms] = ExtraTimeCategory(s, &extra_ms);
  if (cause != StepCategory::kCount_ && cause_ms < kOutlierCauseShare * extra_ms) cause = StepCategory::kCount_;
  const char* why = accumulation                     ? "the optimizer update runs only in those steps (gradient accumulation)"
                    : cause == StepCategory::kInput ? "those steps wait for a batch"
                    : period > 0                     ? "a periodic stall"
                                                     : "";
  f.title = period > 0 ? fmt::format("every {} steps a step takes up to {:.1f}x the median ({}): {}", period,
                                     s.step_ms[worst] / median, Ms(s.step_ms[worst]), why)
                       : fmt::format("{} of {} steps are slow outliers, the worst {:.1f}x the median ({}){}{}", idx.size(),
                                     s.step_count, s.step_ms[worst] / median, Ms(s.step_ms[worst]), *why ? ": " : "", why);
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = GainText(f.gain_upper_bound, "if slow steps ran at the median");
  std::string list;
  for (size_t i : idx) list += fmt::format("{}#{} {}", list.empty() ? "" : ", ", s.step_numbers[i], Ms(s.step_ms[i]));
  f.evidence.push_back({"outlier steps", list});
  f.evidence.push_back({"median / p90 / max step", fmt::format("{} / {} / {}", Ms(median), Ms(s.p90_step_ms), Ms(s.max_step_ms))});
  f.evidence.push_back({"time lost to outliers", fmt::format("{} ({} of step time)", Ms(excess), Pct(f.share_pct))});
  if (period > 0) f.evidence.push_back({"period", fmt::format("every {} steps", period)});
  if (cause != StepCategory::kCount_)
    f.evidence.push_back({"where the slow steps' extra time goes",
                          fmt::format("{}: {} more per slow step than the others ({} of their extra time)",
                                      StepCategoryId(cause), Ms(cause_ms), Pct(100.0 * cause_ms / extra_ms))});
  std::string only;
  for (size_t i = 0; i < s.slow_only_events.size() && i < kTopEventsShown; ++i) {
    const SlowOnlyEvent& e = s.slow_only_events[i];
    only += fmt::format("{}{} (in {} of the {} slow steps, {} each)", only.empty() ? "" : "; ", e.name, e.steps.size(),
                        idx.size(), Ms(e.ms_per_step));
  }
  if (!only.empty()) f.evidence.push_back({"runs in slow steps and in no other", only});

  if (accumulation) {
    // The slow steps apply the gradients the others accumulated: the update is work every
    // optimizer step needs, so there is no stall to schedule away.
    f.severity = FindingSeverity::kLow;
    f.gain_upper_bound = 1.0;
    f.gain_text = "none from scheduling: the update is needed; a cheaper optimizer update shortens it";
    Prediction none;
    none.fix = "stalls";
    none.why_not = "the slow steps apply the optimizer update every optimizer step needs: there is no stall to remove";
    f.prediction = none;
    f.fix.summary = "These steps apply the gradients the steps before them accumulated: measure a whole optimizer "
                    "step (its micro-batches and the update) as one step, and if the update is costly, use a "
                    "multi-tensor optimizer.";
    f.fix.pytorch =
        "# one profiler step per optimizer update, so steps compare like for like:\n"
        "if (i + 1) % accum_steps == 0:\n"
        "    optimizer.step(); optimizer.zero_grad(); prof.step()\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=lr, foreach=True)  # fused=True on GPU";
    f.fix.tensorflow = "# apply the accumulated gradients in one tf.function with the last micro-batch";
    return f;
  }
  if (cause == StepCategory::kInput) {
    // The slow steps are the ones that wait for a batch: input arrives unevenly. Their fix is the
    // input fix (replayed as such), and where input_bound reports the wait, this is the same time
    // seen step by step: not a second gain.
    f.whatif_fix = "input";
    if (CategoryShare(s, StepCategory::kInput) >= kInputModeratePct) {
      f.severity = FindingSeverity::kLow;
      f.gain_text = "the same time input_bound counts (hiding the input wait removes these outliers): not a "
                    "gain of its own";
      f.evidence.push_back({"counted in", "input_bound: these steps' extra time is its wait for batches"});
    }
    f.fix.summary = "The slow steps are the ones that wait for a batch: input arrives unevenly (loader workers "
                    "finishing together, slow files or items). Keep more batches ready ahead of the step and even "
                    "out the cost of an item.";
    f.fix.pytorch = "loader = DataLoader(dataset, batch_size=bs, num_workers=n, prefetch_factor=4,  # more ready per worker\n"
                    "                    persistent_workers=True)";
    f.fix.tensorflow = sig.applied && sig.applied->prefetch
                           ? "# prefetch is on: make the producer steadier\n"
                             "ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)"
                           : "ds = ds.prefetch(tf.data.AUTOTUNE)   # and map(..., num_parallel_calls=tf.data.AUTOTUNE)";
    return f;
  }
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
