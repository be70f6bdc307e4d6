// low_gpu_utilisation: GPU utilisation averages below kGpuLowUtilPct and nothing on the host
// explains it — typically a GPU log (nvidia-smi CSV) without CPU or disk data. The finding says
// the GPU waits and how to find out on what.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> LowGpuUtilisation(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kGpuLow) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  const bool host_data = r.tree_cpu_mean_pct || r.cpu_mean_pct;
  const double util = *r.gpu_util_mean_pct;  // kGpuLow is decided on it
  Finding f;
  f.id = "low_gpu_utilisation";
  f.severity = FindingSeverity::kHigh;
  f.share_pct = 100.0 - util;
  f.title = fmt::format("{} busy only {} of the time{}", GpusAre(r).text, Pct(util), StartupSuffix(r));
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = fmt::format("up to {:.1f}x if the GPU were kept busy; {}", f.gain_upper_bound,
                            host_data ? "the host data shows no saturated CPU or disk, so the wait is elsewhere "
                                        "(small kernels, synchronisation, the network)"
                                      : "the log has no CPU or disk data to say what it waits on");
  AddGpuUtilEvidence(r, &f.evidence);
  AddGpuMemoryEvidence(r, &f.evidence);
  if (r.tree_cpu_mean_pct) f.evidence.push_back({"job's CPU use", Cores(*r.tree_cpu_mean_pct)});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Find what the GPU waits on: run the job under `stepdoctor run -- ...` (CPU and disk alongside the GPU) "
      "or take a short profile; a GPU this idle with memory to spare can also take a larger batch.";
  SetProfileAFewStepsCode(&f.fix);
  return f;
}

}  // namespace stepdoctor::rules
