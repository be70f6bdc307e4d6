// copy_bound: copies between host and device hold much of the step while the device computes
// little beside them (a loop that moves each batch in and each result out, pageable host
// memory, tensors pulled back to the host every step). compute_bound speaks for copies on a
// device that is busy computing; this rule for a device that is busy mostly copying.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/tf1_runs.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> CopyBound(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0 || sig.steps->cpu_only || sig.steps->mean_step_ms <= 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  const double copies = CategoryShare(s, StepCategory::kMemcpy);
  const double compute = CategoryShare(s, StepCategory::kDeviceCompute) + CategoryShare(s, StepCategory::kCollectives);
  if (copies < kCopyBoundPct || copies < kCopyOverComputeFactor * compute) return std::nullopt;
  if (compute >= kComputeBoundPct || DeviceBoundShare(s) > 0) return std::nullopt;  // compute_bound says it
  Finding f;
  f.id = "copy_bound";
  f.severity = copies >= kCopyBoundHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = copies;
  const double device_pct = 100.0 * copies / (copies + compute);
  f.title = fmt::format("copies between host and device hold {} of {} ({} of the device's busy time); it computes {}",
                        Pct(copies), EachStepNoun(s), Pct(device_pct), Pct(compute));
  f.gain_upper_bound = GainIfRemoved(copies);
  f.gain_text = GainText(f.gain_upper_bound, "if the copies were removed") +
                "; with so little compute to overlap them with, only fewer or faster copies gain";
  f.evidence.push_back({"host-device copies", fmt::format("{} {} ({})", Ms(s.category_ms[int(StepCategory::kMemcpy)]),
                                                          PerStep(s), Pct(copies))});
  const double n = double(s.step_count);
  const int64_t h2d = s.memcpy_h2d_copies, d2h = s.memcpy_d2h_copies;
  // Each direction by its copies' own time: where the two overlap, the breakdown gives the hidden
  // one none of its time, and each copy's length would read as near zero.
  if (h2d > 0)
    f.evidence.push_back({"to the device", fmt::format("{} {}, {} copies, {:.2f} ms each", Ms(s.memcpy_h2d_own_ms),
                                                       PerStep(s), h2d, s.memcpy_h2d_own_ms * n / double(h2d))});
  if (d2h > 0)
    f.evidence.push_back({"to the host", fmt::format("{} {}, {} copies, {:.2f} ms each", Ms(s.memcpy_d2h_own_ms),
                                                     PerStep(s), d2h, s.memcpy_d2h_own_ms * n / double(d2h))});
  const bool overlapped = s.memcpy_both_ways_ms >= 0.5 * std::min(s.memcpy_h2d_own_ms, s.memcpy_d2h_own_ms) &&
                          s.memcpy_both_ways_ms > 0;
  if (overlapped)
    f.evidence.push_back({"copies both ways at once (on separate streams)",
                          fmt::format("{} {}: the two directions already overlap", Ms(s.memcpy_both_ways_ms), PerStep(s))});
  // Same-sized tensors copied each way take about as long each way over pinned memory: a copy
  // back several times slower than the copy in is a larger result, or a pageable destination
  // the driver stages through a bounce buffer.
  if (h2d > 0 && d2h > 0 && s.memcpy_h2d_own_ms > 0 && s.memcpy_d2h_own_ms > 0) {
    const double ratio = (s.memcpy_d2h_own_ms / double(d2h)) / (s.memcpy_h2d_own_ms / double(h2d));
    if (ratio >= kCopySlowDirectionFactor)
      f.evidence.push_back({"each copy to the host vs each copy to the device",
                            fmt::format("{:.1f}x as long: results larger than the inputs, or pageable host memory", ratio)});
    else if (1 / ratio >= kCopySlowDirectionFactor)
      f.evidence.push_back({"each copy to the device vs each copy to the host",
                            fmt::format("{:.1f}x as long: inputs larger than the results, or pageable host memory", 1 / ratio)});
  }
  f.evidence.push_back({"device compute beside them", fmt::format("{} {} ({})", Ms(compute * s.mean_step_ms / 100),
                                                                  PerStep(s), Pct(compute))});
  // A TF1 run that copies the model's weights in: each run re-sends them; keeping them on the
  // device removes the copies, which pinned memory or prefetching would only speed up.
  const double h2d_ms = s.memcpy_h2d_ms * n;
  if (sig.tf1_weights && h2d_ms > 0 && sig.tf1_weights->copy_ms >= kWeightCopyShare * h2d_ms) {
    const Tf1WeightCopies& w = *sig.tf1_weights;
    std::string names;
    for (const auto& v : w.names) names += (names.empty() ? "" : ", ") + v;
    f.title = fmt::format("the model's weights are copied to the device in every run: copies hold {} of {} ({} of the "
                          "device's busy time); it computes {}",
                          Pct(copies), EachStepNoun(s), Pct(device_pct), Pct(compute));
    f.evidence.push_back({"of the copies to the device, variable reads (the weights)",
                          fmt::format("{} in {} copies, {:.0f}% ({})", Ms(w.copy_ms), w.copies, 100.0 * w.copy_ms / h2d_ms,
                                      names)});
    f.fix.summary = "The run reads its variables on the CPU and copies them to the device each time: place the "
                    "variables (and any op that makes them, e.g. a Dequantize of quantized weights) on the device "
                    "so they stay there between runs; a graph that rebuilds weights on each run should build them once.";
    f.fix.tensorflow =
        "with tf.device('/gpu:0'):                        # variables created here live on the GPU\n"
        "    logits = model(x)\n"
        "# multi-GPU towers: each tower's variables on its own GPU, not tf.device('/cpu:0')\n"
        "# quantized weights: dequantize once at load time into GPU variables, not inside every run";
    f.fix.pytorch.clear();
    return f;
  }
  const bool pinned = sig.applied && sig.applied->pinned_memory;
  f.fix.summary = "The device waits on copies, not compute: copy less (keep tensors on the device between steps, "
                  "bring back only what is needed, once per many steps), copy in larger pieces, and copy from "
                  "page-locked memory so each copy runs at the link's speed.";
  const bool pinned_results = sig.applied && sig.applied->pinned_results;
  f.fix.pytorch = std::string(pinned ? "# pinned memory is in use already (Pinned -> Device copies)\n"
                                     : "x = x.pin_memory()   # or DataLoader(..., pin_memory=True): page-locked batches\n") +
                  "x = x.to('cuda', non_blocking=True)\n" +
                  (pinned_results ? "# results land in pinned memory already (Device -> Pinned copies)\n"
                                  : "out_host = torch.empty(out.shape, dtype=out.dtype, pin_memory=True)\n"
                                    "out_host.copy_(out, non_blocking=True)   # a pinned destination for results\n") +
                  "# keep results on the device; .cpu() / .item() / .numpy() only every N steps";
  f.fix.tensorflow = "ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))   # batches copied ahead\n"
                     "# keep results as device tensors: .numpy() only every N steps";
  return f;
}

}  // namespace stepdoctor::rules
