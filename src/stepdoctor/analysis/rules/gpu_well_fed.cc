// gpu_well_fed (healthy): without a profile, the samples show the GPUs in use busy
// (mean utilisation >= kGpuWellFedPct): the input keeps up and the GPU's own work sets the
// pace. A utilisation log says a kernel was running, not which one or how well it used the GPU,
// so the finding points to a profile for what to make faster.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuWellFed(const Signals& sig) {
  if (!sig.resources || sig.steps) return std::nullopt;  // a profile's step breakdown says more
  const ResourceSignals& r = *sig.resources;
  if (r.classification != ResourceClass::kGpuBusy || *r.gpu_util_mean_pct < kGpuWellFedPct) return std::nullopt;
  Finding f;
  f.id = "gpu_well_fed";
  f.severity = FindingSeverity::kNone;
  f.share_pct = *r.gpu_util_mean_pct;
  f.title = fmt::format("the GPU is kept busy ({} mean utilisation{}): it is well fed and its own work sets the "
                        "pace; a utilisation log cannot say what that work is (profile a few steps)",
                        Pct(*r.gpu_util_mean_pct), StartupSuffix(r));
  f.gain_upper_bound = 1.0;
  f.gain_text =
      "little idle time to recover; a utilisation log cannot say why the GPU is busy (which kernels, how well they "
      "use it, or whether it waits on collectives): profile a few steps to find out";
  AddGpuUtilEvidence(r, &f.evidence);
  for (const auto& g : r.gpus)
    if (g.mem_total_bytes && !g.unused)  // with a total, used and its share are known too
      f.evidence.push_back({fmt::format("GPU {} memory peak", g.index),
                            fmt::format("{} of {} ({})", GiB(*g.mem_used_peak_bytes), GiB(*g.mem_total_bytes), Pct(*g.mem_used_peak_pct))});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "The input keeps up; speed now comes from the GPU work itself. Profile a few steps to see which kernels "
      "dominate, then try mixed precision, compilation, or a larger batch if memory allows.";
  f.fix.tensorflow =
      "tf.profiler.experimental.start('logdir')  # a few steps, then stepdoctor diagnose logdir\n"
      "for step in range(20): train_step(next(it))\n"
      "tf.profiler.experimental.stop()\n"
      "tf.keras.mixed_precision.set_global_policy('mixed_float16')";
  f.fix.pytorch =
      "with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),\n"
      "        on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as p:\n"
      "    for step, batch in enumerate(loader):\n"
      "        train_step(batch); p.step()\n"
      "        if step == 8: break  # then: stepdoctor diagnose ./log\n"
      "model = torch.compile(model)  # and torch.autocast('cuda', dtype=torch.bfloat16)";
  return f;
}

}  // namespace stepdoctor::rules
