// gpu_utilisation_not_logged: GPU samples without a utilisation column (memory, power,
// temperature only) whose memory shows a process on some GPU: the log says the GPUs were
// used, not how busy they were. States what it does hold and how to log utilisation.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuUtilisationNotLogged(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kGpuUtilUnknown) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  double mem_peak = 0, mem_total = 0;
  for (const auto& g : r.gpus) {
    mem_peak = std::max(mem_peak, g.mem_used_peak_bytes.value_or(0));
    mem_total = std::max(mem_total, g.mem_total_bytes.value_or(0));  // 0: no GPU states a total
  }
  Finding f;
  f.id = "gpu_utilisation_not_logged";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 0;  // about what the log lacks, not time
  std::string gpus = r.gpus.size() == 1 ? "1 GPU" : fmt::format("{} GPUs", r.gpus.size());
  std::string memory = mem_total > 0 ? fmt::format("memory used peaks at {} of {}", MemText(mem_peak), MemText(mem_total))
                                     : fmt::format("memory used peaks at {}", MemText(mem_peak));
  f.title = fmt::format("{} sampled with no utilisation column: {}; how busy {} cannot be told", gpus, memory,
                        r.gpus.size() == 1 ? "it was" : "they were");
  f.gain_upper_bound = 1.0;
  f.gain_text = "unknown: the log does not say how busy the GPUs were";
  for (size_t i = 0; i < r.gpus.size() && i < 8; ++i)
    if (std::string s = GpuMemoryAndPowerText(r.gpus[i]); !s.empty())
      f.evidence.push_back({fmt::format("GPU {}", r.gpus[i].index), s});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Log utilisation with the rest: nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,"
      "memory.total,power.draw --format=csv -l 1, or run the job under `stepdoctor run -- ...`.";
  return f;
}

}  // namespace stepdoctor::rules
