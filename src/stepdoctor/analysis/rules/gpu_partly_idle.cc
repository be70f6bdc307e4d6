// gpu_partly_idle: without a profile, the GPUs in use are busy on average (>= kGpuLowUtilPct,
// so not starved) but below kGpuWellFedPct: they wait for a good part of the time. Host data, if
// sampled, showed nothing saturated (else a host or storage rule fired); a utilisation log
// cannot say on what the GPU waits, so the finding points to a profile or `stepdoctor run`.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuPartlyIdle(const Signals& sig) {
  if (!sig.resources || sig.steps) return std::nullopt;  // a profile's step breakdown says more
  const ResourceSignals& r = *sig.resources;
  if (r.classification != ResourceClass::kGpuBusy || *r.gpu_util_mean_pct >= kGpuWellFedPct) return std::nullopt;
  const bool host_data = r.tree_cpu_mean_pct || r.cpu_mean_pct;
  Finding f;
  f.id = "gpu_partly_idle";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 100.0 - *r.gpu_util_mean_pct;
  const GpusSubject gpus = GpusAre(r);
  f.title = fmt::format("{} busy {} of the time{} and idle the other {}: partly fed, not starved; {}", gpus.text,
                        Pct(*r.gpu_util_mean_pct), StartupSuffix(r), Pct(f.share_pct),
                        host_data ? "the host samples show nothing saturated"
                                  : fmt::format("a utilisation log cannot say what {} on", gpus.plural ? "they wait" : "it waits"));
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = fmt::format("up to {:.1f}x if the GPU were kept busy; {}", f.gain_upper_bound,
                            host_data ? "the host data shows no saturated CPU or disk, so the wait is elsewhere "
                                        "(small kernels, synchronisation, the network, evaluation phases)"
                                      : "a utilisation log cannot say what the GPU waits on");
  AddGpuUtilEvidence(r, &f.evidence);
  AddGpuMemoryEvidence(r, &f.evidence);
  if (r.dips && r.dips->count > 0)
    f.evidence.push_back({"drops below half the median", fmt::format("{} over the log", r.dips->count)});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Find what the GPU waits on in its idle share: run the job under `stepdoctor run -- ...` (CPU and disk "
      "alongside the GPU) or profile a few steps.";
  SetProfileAFewStepsCode(&f.fix);
  return f;
}

}  // namespace stepdoctor::rules
