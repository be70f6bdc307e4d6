// input_bound: the step waits on the input pipeline while the device has nothing to do.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/input_limit_advice.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
std::optional<Finding> InputBound(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  // The share is the host's wait on input (what a user sees as "waiting on the DataLoader");
  // the gain counts only the exposed part, while the device had nothing to do: hiding the
  // rest would not shorten the step.
  double share = s.mean_step_ms > 0 ? 100.0 * s.input_wait_ms / s.mean_step_ms : 0;
  double exposed = CategoryShare(s, StepCategory::kInput);
  if (exposed < kInputModeratePct) return std::nullopt;

  Finding f;
  f.id = "input_bound";
  f.severity = exposed >= kInputHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  std::string what = s.input_wait_events.empty() ? std::string("the input pipeline") : s.input_wait_events[0].name;
  bool dataloader = what.find("DataLoader") != std::string::npos;
  f.title = fmt::format("{} of {} waits on {}", Pct(share), EachStep(s),
                        dataloader ? "the DataLoader" : "input");
  // A few steps holding nearly all the wait (the loader stalled, or its workers started) are no
  // "each step": the title says where the wait is, and what the median step waits.
  if (s.has_steps && s.step_count >= kMinStepsForOutliers && s.per_step_category_ms.size() == s.step_ms.size()) {
    std::vector<double> shares;
    int heavy = 0;
    for (size_t w = 0; w < s.step_ms.size(); ++w) {
      const double in = s.per_step_category_ms[w][int(StepCategory::kInput)];
      const double sh = s.step_ms[w] > 0 ? 100.0 * in / s.step_ms[w] : 0;
      shares.push_back(sh);
      heavy += sh >= kInputModeratePct;
    }
    const double median_share = Median(shares);
    if (2 * heavy < int(shares.size()) && median_share < kInputModeratePct) {
      f.title = fmt::format("{} of the steps' time waits on {}, nearly all of it in {} of {} steps (the median step "
                            "waits {})",
                            Pct(share), dataloader ? "the DataLoader" : "input", heavy, shares.size(), Pct(median_share));
      f.evidence.push_back({"steps waiting on input for at least " + Pct(kInputModeratePct) + " of their time",
                            fmt::format("{} of {}: stalls of the input pipeline (a slow fetch, workers starting or "
                                        "falling behind), not a wait in every step",
                                        heavy, shares.size())});
    }
  }
  f.gain_upper_bound = GainIfRemoved(exposed);
  f.gain_text = GainText(f.gain_upper_bound, "if the input wait is fully hidden behind compute");
  f.evidence.push_back({fmt::format("host waits on input {}", PerStep(s)), fmt::format("{} ({} {})", Ms(s.input_wait_ms), Pct(share), OfTheStep(s))});
  if (!s.cpu_only)
    f.evidence.push_back({"of which the device idles (exposed)", fmt::format("{} ({} {})", Ms(s.category_ms[int(StepCategory::kInput)]), Pct(exposed), OfTheStep(s))});
  if (!s.cpu_only)
    f.evidence.push_back({"device busy during steps", Pct(s.device_busy_pct)});
  f.evidence.push_back(StepsMeasured(s, ", median " + Ms(s.median_step_ms)));
  for (size_t i = 0; i < s.input_wait_events.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.input_wait_events[i]);

  f.fix.summary =
      "Prepare batches in parallel with the step and keep some ready: parallel map and prefetch in tf.data; "
      "worker processes, pinned memory and prefetching in the PyTorch DataLoader.";
  f.fix.tensorflow =
      "# where the data is many small files, pack it into TFRecord shards and read them in parallel\n"
      "ds = tf.data.TFRecordDataset(files, num_parallel_reads=tf.data.AUTOTUNE)\n"
      "ds = ds.map(parse_and_augment, num_parallel_calls=tf.data.AUTOTUNE)\n"
      "ds = ds.cache()            # if the decoded data fits in memory\n"
      "ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)";
  f.fix.pytorch =
      "loader = torch.utils.data.DataLoader(\n"
      "    dataset, batch_size=batch_size, shuffle=True,\n"
      "    num_workers=min(8, os.cpu_count()),  # load batches in worker processes\n"
      "    pin_memory=True,                     # faster, asynchronous host-to-device copies\n"
      "    persistent_workers=True,             # keep workers alive between epochs\n"
      "    prefetch_factor=4)                   # batches each worker keeps ready";
  // Workers or prefetch already in use: the loader cannot keep up even so. Say so and advise
  // what is left (more workers, cheaper per-item work, faster storage), not what is done.
  const AppliedOptimizations* applied = sig.applied;
  const double fetch_ms = s.input_wait_events.empty() || s.input_wait_events[0].count <= 0
                              ? 0
                              : s.input_wait_events[0].total_ms / double(s.input_wait_events[0].count);
  if (applied && applied->loader_workers && fetch_ms > 0 && fetch_ms <= kLoaderReadyFetchMs) {
    // Each fetch is short: it hands over a batch the workers had ready. The workers keep up; the
    // wait is the cost of the handover itself, which more workers would not shorten.
    f.evidence.push_back({"already in use", "DataLoader worker processes"});
    f.evidence.push_back({"mean fetch", fmt::format("{} (a batch the workers had ready: they keep up)", Ms(fetch_ms))});
    f.title = fmt::format("{} of {} is the DataLoader handing over batches its workers had ready ({} a fetch)",
                          Pct(share), EachStep(s), Ms(fetch_ms));
    // The pipeline keeps up: a fixed cost per batch, not a loader the step waits for, so it is
    // not the verdict's high finding (a busy device still names the bottleneck).
    f.severity = FindingSeverity::kModerate;
    f.fix.summary = "The workers keep up: what the step waits for is each batch's handover to the training process "
                    "(dequeue, unpickle, map its shared-memory tensors). More workers will not shorten it; fewer, "
                    "larger handovers do: a larger batch, fewer tensors per batch, or, where items are cheap to make, "
                    "loading them in the training process.";
    f.fix.pytorch =
        "# fewer, larger handovers: a larger batch, and one tensor per field rather than many small ones\n"
        "loader = torch.utils.data.DataLoader(dataset, batch_size=2 * batch_size, num_workers=current_workers,\n"
        "                                     persistent_workers=True)";
  } else if (applied && applied->loader_workers) {
    f.evidence.push_back({"already in use", "DataLoader worker processes"});
    if (fetch_ms > 0) f.evidence.push_back({"mean fetch", fmt::format("{} (longer than a ready batch's handover)", Ms(fetch_ms))});
    f.fix.summary = "The DataLoader already loads in worker processes and still cannot keep up: give it more "
                    "workers if cores are idle, make each item cheaper (decode once and cache, move augmentation "
                    "to the GPU), or read from faster storage / fewer, larger files.";
    f.fix.pytorch =
        "# raise num_workers while cores are idle (watch `stepdoctor run` CPU samples), and keep batches ready:\n"
        "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=2 * current_workers,\n"
        "                                     pin_memory=True, persistent_workers=True, prefetch_factor=4)\n"
        "# cheaper items: cache decoded samples, or augment on the GPU after the copy";
  }
  if (applied && applied->prefetch) {
    f.evidence.push_back({"already in use", "tf.data prefetch"});
    f.fix.tensorflow =
        "# prefetch is in place: the producer side is too slow. Parallelise and cache it:\n"
        "ds = tf.data.TFRecordDataset(files, num_parallel_reads=tf.data.AUTOTUNE)\n"
        "ds = ds.map(parse_and_augment, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
        "ds = ds.cache()            # if the decoded data fits in memory";
  }
  if (applied && applied->pipeline_created) {
    // The iterator was made in the window: its first batch includes the pipeline's start-up,
    // paid once per iterator, which neither parallel map nor prefetch removes.
    f.evidence.push_back({"input pipeline made in the window",
                          "an iterator is created here (OneShotIterator, MakeIterator, AnonymousIterator): its first "
                          "batch includes the pipeline's start-up (opening files, filling shuffle and prefetch buffers), "
                          "paid once per iterator"});
    if (s.step_count == 1) {
      f.severity = std::min(f.severity, FindingSeverity::kModerate);
      f.fix.summary = "The one step recorded makes the input pipeline and waits for its first batch, start-up included: "
                      "profile later steps to see the steady input wait. " + f.fix.summary;
    }
  }
  // No steps, and nothing but input calls recorded (no operator, launch or device work): the
  // window is the input calls' own span, so the share measures how the file was cut, not what the
  // step waits on. The calls may be the pipeline's own threads (tf.data's GetNext ran on several
  // at once), not the training step blocking on them.
  double work = 0;
  for (StepCategory c : {StepCategory::kKernelLaunch, StepCategory::kHostCompute, StepCategory::kDeviceCompute,
                         StepCategory::kCollectives, StepCategory::kMemcpy})
    work += CategoryShare(s, c);
  if (!s.has_steps && work < kInputOnlyWorkPct) {
    f.severity = std::min(f.severity, FindingSeverity::kLow);
    f.gain_upper_bound = 0;
    f.gain_text = "unknown: the trace records the input calls alone, not the step they feed";
    f.title = fmt::format("{} of the window is input calls, and the trace records nothing else: no step markers, "
                          "operators or device work, so what the step waits on cannot be told",
                          Pct(share));
    f.evidence.push_back({"recorded besides input calls", fmt::format("{} of the window", Pct(work))});
    f.fix.summary = "Record the training step itself (step markers, operators, device activity), then diagnose again; "
                    "the input pipeline's calls alone cannot show whether the step waits on them.";
    Prediction none;
    none.fix = "input";
    none.why_not = "the trace records the input calls alone: there is no step to replay without them";
    f.prediction = none;
  }
  AddInputLimit(sig, &f);  // where the dataset's storage was probed: storage or CPU, and its fix
  return f;
}

}  // namespace stepdoctor::rules
