// gpu_utilisation_not_logged: GPU samples without a utilisation column (memory, power,
// temperature only) that do not show the GPUs unused (memory held, or no memory column at all):
// the log does not say how busy they were. States only the figures the log holds (memory where
// it has a memory column, power where it has power) and how to log utilisation.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuUtilisationNotLogged(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kGpuUtilUnknown) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  std::optional<double> mem_peak, mem_total, mem_pct, power_sum;
  int powered = 0;
  for (const auto& g : r.gpus) {
    if (g.mem_used_peak_bytes) mem_peak = std::max(mem_peak.value_or(0), *g.mem_used_peak_bytes);
    if (g.mem_total_bytes) mem_total = std::max(mem_total.value_or(0), *g.mem_total_bytes);
    if (!g.mem_used_peak_bytes && g.mem_used_peak_pct) mem_pct = std::max(mem_pct.value_or(0), *g.mem_used_peak_pct);
    if (g.power_mean_w) power_sum = power_sum.value_or(0) + *g.power_mean_w, ++powered;
  }
  Finding f;
  f.id = "gpu_utilisation_not_logged";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 0;  // about what the log lacks, not time
  std::string gpus = r.gpus.size() == 1 ? "1 GPU" : fmt::format("{} GPUs", r.gpus.size());
  // What the log holds, never a figure for a column it lacks.
  std::vector<std::string> held;
  if (mem_peak)
    held.push_back(mem_total ? fmt::format("memory used peaks at {} of {}", MemText(*mem_peak), MemText(*mem_total))
                             : fmt::format("memory used peaks at {}", MemText(*mem_peak)));
  else if (mem_pct)
    held.push_back(fmt::format("memory used peaks at {}", Pct(*mem_pct)));
  const std::string power =
      power_sum ? fmt::format("{:.1f} W mean{}", *power_sum / powered, powered > 1 ? " per GPU" : "") : "";
  if (power_sum) held.push_back("power draw " + power);
  std::string holds;
  if (held.empty()) holds = "it holds no memory or power figure";
  else if (held.size() == 1 && power_sum) holds = fmt::format("it holds power draw only ({})", power);
  else
    for (const std::string& h : held) holds += (holds.empty() ? "" : ", ") + h;
  f.title = fmt::format("{} sampled with no utilisation column: {}; how busy {} cannot be told", gpus, holds,
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
