// low_gpu_utilisation: GPU utilisation averages below kGpuLowUtilPct and nothing on the host
// explains it — typically a GPU log (nvidia-smi CSV) without CPU or disk data. The finding says
// the GPU waits and how to find out on what.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

#include <algorithm>
#include <optional>

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
  // A larger batch only where the log shows the memory for it: the fullest GPU in use.
  std::optional<double> mem_peak_pct;
  for (const auto& g : r.gpus)
    if (!g.unused && g.mem_used_peak_pct) mem_peak_pct = std::max(mem_peak_pct.value_or(0), *g.mem_used_peak_pct);
  f.fix.summary =
      "Find what the GPU waits on: run the job under `stepdoctor run -- ...` (CPU and disk alongside the GPU) "
      "or take a short profile";
  f.fix.summary += mem_peak_pct && *mem_peak_pct < kMemoryNearFullPct
                       ? fmt::format("; with memory to spare (peak {} of it), the GPU can also take a larger batch.",
                                     Pct(*mem_peak_pct))
                       : ".";
  SetProfileAFewStepsCode(&f.fix);
  return f;
}

}  // namespace stepdoctor::rules
