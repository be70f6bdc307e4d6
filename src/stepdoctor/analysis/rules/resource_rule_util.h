// Helpers shared by the resource rules (those reading Signals::resources).
#pragma once

#include <fmt/format.h>

#include <string>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/rule_util.h"

namespace stepdoctor::rules {

inline std::string MBps(double bytes_per_s) { return fmt::format("{:.1f} MB/s", bytes_per_s / 1e6); }
inline std::string Cores(double pct_of_one_core) { return fmt::format("{:.2f} cores ({:.0f}%)", pct_of_one_core / 100, pct_of_one_core); }

// "240 samples over 4.0 min (every 1.0 s)" — every resource finding says what it rests on.
inline EvidenceItem SamplesEvidence(const ResourceSignals& r) {
  std::string window = r.window_s >= 120 ? fmt::format("{:.1f} min", r.window_s / 60) : fmt::format("{:.1f} s", r.window_s);
  return {"samples", fmt::format("{} over {} (every {:.2g} s)", r.samples, window, r.interval_s)};
}

inline std::string GpuUtilText(const ResourceSignals& r) {
  if (r.gpus.size() == 1) return Pct(r.gpu_util_mean_pct);
  // The mean is over the GPUs in use when some are unused (see ResourceSignals).
  const bool some_unused = r.gpus_in_use > 0 && size_t(r.gpus_in_use) < r.gpus.size();
  std::string s = some_unused ? fmt::format("{} mean over the {} GPU{} in use (", Pct(r.gpu_util_mean_pct),
                                            r.gpus_in_use, r.gpus_in_use == 1 ? "" : "s")
                              : fmt::format("{} mean over {} GPUs (", Pct(r.gpu_util_mean_pct), r.gpus.size());
  for (size_t i = 0; i < r.gpus.size() && i < 8; ++i)
    s += fmt::format("{}GPU {} {:.0f}%{}", i ? ", " : "", r.gpus[i].index, r.gpus[i].util_mean_pct,
                     some_unused && r.gpus[i].unused ? " unused" : "");
  return s + (r.gpus.size() > 8 ? ", ...)" : ")");
}

// Mean, median and time under kGpuLowUtilPct: what a utilisation log can say about feeding.
inline void AddGpuUtilEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  ev->push_back({"GPU utilisation", GpuUtilText(r)});
  if (r.gpu_util_median_pct >= 0) ev->push_back({"median GPU utilisation", Pct(r.gpu_util_median_pct)});
  if (r.gpu_util_below_low_pct >= 0)
    ev->push_back({fmt::format("samples under {:.0f}% utilisation", kGpuLowUtilPct), Pct(r.gpu_util_below_low_pct)});
}

// Evidence lines for whichever storage indicators were recorded.
inline void AddStorageEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  if (r.has_tree)
    ev->push_back({"job's disk reads / writes", fmt::format("{} / {}", MBps(r.tree_read_bytes_per_s), MBps(r.tree_write_bytes_per_s))});
  if (r.has_tree) ev->push_back({"samples with a process waiting on disk (D state)", Pct(r.tree_blocked_pct)});
  if (r.has_disk)
    ev->push_back({"disks: reads / writes / busiest disk busy", fmt::format("{} / {} / {}", MBps(r.disk_read_bytes_per_s),
                                                                            MBps(r.disk_write_bytes_per_s), Pct(r.disk_util_mean_pct))});
  if (r.has_machine_cpu) ev->push_back({"CPU iowait (machine)", Pct(r.iowait_mean_pct)});
  if (r.has_psi) ev->push_back({"I/O pressure (PSI some)", Pct(r.psi_io_some_mean_pct)});
}

}  // namespace stepdoctor::rules
