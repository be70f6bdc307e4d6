#include "stepdoctor/analysis/resource_snapshots.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace stepdoctor {
namespace {

// Findings whose figures are means of the utilisation samples (or of the host's, beside them).
bool ReadFromUtilisation(std::string_view id) {
  for (std::string_view u : {"idle_gpu", "low_gpu_utilisation", "gpu_partly_idle", "gpu_starved_cpu_bound",
                             "periodic_utilisation_dips", "storage_bound", "cpu_saturated", "serial_cpu_pipeline",
                             "gpu_idle_stretch"})
    if (id == u) return true;
  return false;
}

std::string Spacing(double s) {
  return s >= 3600 ? fmt::format("{:.1f} h", s / 3600) : s >= 120 ? fmt::format("{:.0f} min", s / 60) : fmt::format("{:.0f} s", s);
}

}  // namespace

bool IsSnapshotLog(const ResourceSignals& r) { return r.interval_s >= kSnapshotIntervalS && r.samples < kSnapshotMaxSamples; }

void HoldBackSnapshotFindings(const ResourceSignals& r, std::vector<Finding>* findings) {
  if (!IsSnapshotLog(r)) return;
  for (Finding& f : *findings) {
    if (!ReadFromUtilisation(f.id)) continue;
    f.severity = std::min(f.severity, FindingSeverity::kModerate);
    f.gain_upper_bound = 1.0;
    f.gain_text = fmt::format("no gain figure: {} snapshots {} apart are moments of the GPUs, not the time between them",
                              r.samples, Spacing(r.interval_s));
    f.evidence.push_back({"sampling", fmt::format("{} samples, {} apart at the median: each reads the GPU over a fraction of "
                                                  "a second; what ran between them, and who held the GPU, is not in the log",
                                                  r.samples, Spacing(r.interval_s))});
    f.fix.summary = "Log the job itself, every second or few (nvidia-smi --query-gpu=... -l 1, or stepdoctor run -- CMD), "
                    "before acting on a few snapshots. " + f.fix.summary;
  }
}

}  // namespace stepdoctor
