// gpu_well_fed (healthy): without a profile, the samples show the GPUs in use busy (mean
// utilisation >= kGpuWellFedPct): the input keeps up. nvidia-smi's utilisation is the share of
// time some kernel was resident, whatever it did (a memory-bound kernel, a collective waiting on
// another GPU), so the finding names no bottleneck: it says how busy the GPUs were and points to
// a profile for what their work is.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {
namespace {

// "GPU busy", "both GPUs busy", "all 8 GPUs busy" (each at kGpuWellFedPct or more), "8 GPUs busy
// on average" (some below it), "3 of 4 GPUs busy" (the others unused: idle_gpu says which).
std::string BusySubject(const ResourceSignals& r) {
  int sampled = 0, in_use = 0;
  bool each_busy = true;
  for (const auto& g : r.gpus) {
    if (!g.util_mean_pct) continue;
    ++sampled;
    if (g.unused) continue;
    ++in_use;
    each_busy = each_busy && *g.util_mean_pct >= kGpuWellFedPct;
  }
  if (sampled <= 1) return "GPU busy";
  if (in_use < sampled) return fmt::format("{} of {} GPUs busy", in_use, sampled);
  if (!each_busy) return fmt::format("{} GPUs busy on average", sampled);
  return sampled == 2 ? "both GPUs busy" : fmt::format("all {} GPUs busy", sampled);
}

}  // namespace

std::optional<Finding> GpuWellFed(const Signals& sig) {
  if (!sig.resources || sig.steps) return std::nullopt;  // a profile's step breakdown says more
  const ResourceSignals& r = *sig.resources;
  if (r.classification != ResourceClass::kGpuBusy || *r.gpu_util_mean_pct < kGpuWellFedPct) return std::nullopt;
  const bool plural = GpusAre(r).plural;
  Finding f;
  f.id = "gpu_well_fed";
  f.severity = FindingSeverity::kNone;
  f.share_pct = *r.gpu_util_mean_pct;
  f.title = fmt::format("{}: {} mean utilisation{}; utilisation counts any time a kernel is resident ({}), so the log "
                        "cannot say whether compute, memory or communication sets the pace",
                        BusySubject(r), Pct(*r.gpu_util_mean_pct), StartupSuffix(r),
                        plural ? "collectives waiting on other GPUs included" : "slow or memory-bound kernels alike");
  f.gain_upper_bound = 1.0;
  f.gain_text = fmt::format(
      "little idle time to recover; a utilisation log cannot say why {} busy (which kernels, how well they use {}, "
      "or whether {} on collectives): profile a few steps to find out",
      plural ? "the GPUs are" : "the GPU is", plural ? "them" : "it", plural ? "they wait" : "it waits");
  AddGpuUtilEvidence(r, &f.evidence);
  AddGpuMemoryEvidence(r, &f.evidence);
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      plural ? "Utilisation this high says only that each GPU always had a kernel resident, not what the kernels did: "
               "profile a few steps and run `stepdoctor diagnose` on the trace to see which kernels take the time and "
               "how much of it is collectives (NCCL) waiting on other GPUs, before choosing between faster kernels "
               "and overlapping communication."
             : "Utilisation this high says only that the GPU always had a kernel resident, not how well the kernels "
               "use it: profile a few steps and run `stepdoctor diagnose` on the trace to see which kernels take the "
               "time before changing precision, compilation or batch size.";
  SetProfileAFewStepsCode(&f.fix);
  return f;
}

}  // namespace stepdoctor::rules
