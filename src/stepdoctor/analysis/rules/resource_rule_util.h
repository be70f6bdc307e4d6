// Helpers shared by the resource rules (those reading Signals::resources).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/rule_util.h"

namespace stepdoctor::rules {

inline std::string MBps(double bytes_per_s) { return fmt::format("{:.1f} MB/s", bytes_per_s / 1e6); }
inline std::string Cores(double pct_of_one_core) { return fmt::format("{:.2f} cores ({:.0f}%)", pct_of_one_core / 100, pct_of_one_core); }

// "240 samples over 4.0 min (every 1.0 s)" — every resource finding says what it rests on.
inline EvidenceItem SamplesEvidence(const ResourceSignals& r) {
  if (!r.times_known && r.one_stamp)
    return {"samples", fmt::format("{} in file order, all stamped with one time (the log is shorter than its clock's "
                                   "step: their interval is unknown)",
                                   r.samples)};
  if (!r.times_known)
    return {"samples", fmt::format("{} in file order (the log does not time them: their interval is unknown)", r.samples)};
  std::string window = r.window_s >= 120 ? fmt::format("{:.1f} min", r.window_s / 60) : fmt::format("{:.1f} s", r.window_s);
  std::string holes;
  if (r.sample_gaps > 0 && r.window_s > 0)
    holes = fmt::format("; {} hole{} in the sampling, up to {:.2g} s, {:.1f}% of the log unsampled: the figures cover "
                        "the sampled time",
                        r.sample_gaps, r.sample_gaps == 1 ? "" : "s", r.sample_gap_max_s,
                        100.0 * r.sample_gap_s / r.window_s);
  return {"samples", fmt::format("{} over {} (every {:.2g} s{})", r.samples, window, r.interval_s, holes)};
}

// "2.0 MiB" under 1 GiB, else GiB: an idle GPU's few MiB read as 0.0 GiB otherwise.
inline std::string MemText(double bytes) {
  return bytes < 1024.0 * 1024 * 1024 ? fmt::format("{:.0f} MiB", bytes / (1024.0 * 1024)) : GiB(bytes);
}

// Whether a process holds memory on the GPU for most of the log (kHeldMemoryBytes in at least
// kHeldMemorySampleShare of its memory samples), and whether memory passed it at all.
inline bool MemoryHeld(const GpuResource& g) {
  return g.mem_samples > 0 && g.mem_held_samples >= kHeldMemorySampleShare * g.mem_samples;
}
inline bool MemoryHeldBriefly(const GpuResource& g) { return g.mem_held_samples > 0 && !MemoryHeld(g); }

// "31.2% mean over 4 GPUs (GPU 0 30%, ...)". REQUIRED: r.gpu_util_mean_pct has a value.
inline std::string GpuUtilText(const ResourceSignals& r) {
  std::vector<const GpuResource*> sampled;  // GPUs with a utilisation series
  for (const auto& g : r.gpus)
    if (g.util_mean_pct) sampled.push_back(&g);
  const double mean = r.gpu_util_mean_pct.value_or(0);
  if (sampled.size() <= 1) return Pct(mean);
  // The mean is over the GPUs in use when some are unused (see ResourceSignals).
  int in_use = 0;
  for (const GpuResource* g : sampled) in_use += !g->unused;
  const bool some_unused = in_use > 0 && size_t(in_use) < sampled.size();
  std::string s = some_unused ? fmt::format("{} mean over the {} GPU{} in use (", Pct(mean), in_use, in_use == 1 ? "" : "s")
                              : fmt::format("{} mean over {} GPUs (", Pct(mean), sampled.size());
  for (size_t i = 0; i < sampled.size() && i < 8; ++i)
    s += fmt::format("{}GPU {} {:.0f}%{}", i ? ", " : "", sampled[i]->index, *sampled[i]->util_mean_pct,
                     some_unused && sampled[i]->unused ? " unused" : "");
  return s + (sampled.size() > 8 ? ", ...)" : ")");
}

// " while a process held the GPU (3 runs; 25.0% over the whole log)" where the log spans more than the job
// (ResourceSignals::gpu_runs), then " (after a 9.2 s start-up, kept out: 34.7% with it)" where the job
// opens with one (ResourceSignals::gpu_startup; the figures are over the samples after it).
inline std::string StartupSuffix(const ResourceSignals& r) {
  std::vector<std::string> parts;
  if (r.gpu_runs) {
    const GpuRuns& g = *r.gpu_runs;
    if (g.runs.size() >= 2) parts.push_back(fmt::format("{} runs", g.runs.size()));
    parts.push_back(fmt::format("{} over the whole log{}", Pct(g.log_util_mean_pct),
                                g.runs.size() >= 2 ? ""
                                : g.leading && g.trailing ? ", which spans time before and after it"
                                : g.leading               ? ", which starts before it"
                                                          : ", which goes on after it"));
  }
  if (r.gpu_startup) {
    const GpuStartup& s = *r.gpu_startup;
    parts.push_back(r.times_known ? fmt::format("after a {:.1f} s start-up, kept out: {} with it", s.duration_s, Pct(s.util_with_pct))
                                  : fmt::format("after a start-up of {} samples, kept out: {} with it", s.samples, Pct(s.util_with_pct)));
  }
  if (parts.empty()) return "";
  std::string out = r.gpu_runs ? " while a process held the GPU (" : " (";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ")";
}

inline std::string DurationText(double s) { return s >= 120 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} s", s); }

// "3 runs: 3.5 min at 13.3%, ...; 6 samples (3.0 min, 12.5% of the log) between them with no
// process on the GPU (memory back at 2 MiB: no context, whatever utilisation the driver still reports) are left out of the figures above".
inline std::string GpuRunsText(const ResourceSignals& r) {
  const GpuRuns& g = *r.gpu_runs;
  std::string s = fmt::format("{} run{}: ", g.runs.size(), g.runs.size() == 1 ? "" : "s");
  for (size_t i = 0; i < g.runs.size() && i < 6; ++i)
    s += fmt::format("{}{} at {}", i ? ", " : "",
                     r.times_known ? DurationText(g.runs[i].duration_s) : fmt::format("{} samples", g.runs[i].samples),
                     Pct(g.runs[i].util_mean_pct));
  if (g.runs.size() > 6) s += ", ...";
  const bool leading = g.leading;
  const char* them = g.runs.size() == 1 ? "it" : "them";
  std::string where = g.runs.size() == 1 ? (leading && g.trailing ? "before and after" : leading ? "before" : "after")
                      : leading && g.trailing ? "before, between and after"
                      : leading               ? "before and between"
                      : g.trailing            ? "between and after"
                                              : "between";
  const char* samples = g.excluded_samples == 1 ? "sample" : "samples";
  std::string amount = r.times_known ? fmt::format("{} {} ({}, {} of the log)", g.excluded_samples, samples,
                                                   DurationText(g.excluded_s), Pct(g.excluded_pct))
                                     : fmt::format("{} {} ({} of the log)", g.excluded_samples, samples, Pct(g.excluded_pct));
  return s + fmt::format("; {} {} {} with no process on the GPU (memory at {}: no context) {} left out of "
                         "the figures above",
                         amount, where, them, MemText(g.baseline_bytes), g.excluded_samples == 1 ? "is" : "are");
}

// "GPU utilisation: 13.0%", and where the job opened with a start-up, the figure with it and what
// it was: every finding that cites the utilisation says the start-up was kept out of it.
// REQUIRED: r.gpu_util_mean_pct has a value.
inline void AddGpuUtilLine(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  ev->push_back({"GPU utilisation", GpuUtilText(r)});
  if (r.gpu_startup) {
    const GpuStartup& s = *r.gpu_startup;
    int sampled = 0;
    for (const auto& g : r.gpus) sampled += g.util_mean_pct.has_value();
    const std::string whose = sampled > 1 ? fmt::format("GPU {}'s", s.gpu) : "the";
    std::string span = r.times_known ? fmt::format("{} first {} samples ({:.1f} s)", whose, s.samples, s.duration_s)
                                     : fmt::format("{} first {} samples", whose, s.samples);
    std::string mem = s.mem_from_bytes && s.mem_to_bytes && *s.mem_to_bytes > *s.mem_from_bytes
                          ? fmt::format(" while memory grew from {} to {}", MemText(*s.mem_from_bytes), MemText(*s.mem_to_bytes))
                          : "";
    ev->push_back({"GPU utilisation with the start-up",
                   fmt::format("{} ({} at {:.1f}% on average{}: the job starting, not its steps; kept out of the "
                               "utilisation figures, as a trace's warm-up step is)",
                               Pct(s.util_with_pct), span, s.mean_pct, mem)});
  }
}

// Mean, median and time under kGpuLowUtilPct (after a start-up, where the job opens with one):
// what a utilisation log can say about feeding.
inline void AddGpuUtilEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  AddGpuUtilLine(r, ev);
  if (r.gpu_runs) ev->push_back({"the job's runs in the log", GpuRunsText(r)});
  if (r.gpu_idle_stretch) {
    const GpuIdleStretch& g = *r.gpu_idle_stretch;
    const std::string when = r.times_known ? fmt::format("{} ({} samples, {} of the job's) {} into the log",
                                                         DurationText(g.duration_s), g.samples, Pct(g.share_pct),
                                                         DurationText(g.start_s))
                                           : fmt::format("{} samples in a row ({} of the job's)", g.samples, Pct(g.share_pct));
    const char* power = g.power_checked ? " at idle power" : "";
    // Before most of the job's work, the job is likely still starting: a compiler or graph
    // capture holds the model without running it.
    const char* causes = g.early ? "(still starting: compiling the model with torch.compile or XLA, capturing CUDA "
                                   "graphs, warming up; or evaluation on the CPU, waiting on data or a peer, a hang)"
                                 : "(evaluation on the CPU, checkpointing, waiting on data or a peer, a hang)";
    // Snapshots far apart see only their instants: what ran between them is unknown.
    ev->push_back({"longest idle stretch with memory held",
                   g.interval_s >= kCoarseSampleIntervalS
                       ? fmt::format("{}, holding up to {}{}: snapshots {} apart read the GPU idle; the job may have "
                                     "paused with its model loaded {}, or ran between them",
                                     when, MemText(g.mem_bytes), power, DurationText(g.interval_s), causes)
                       : fmt::format("{}, holding up to {}{}: the job paused with its model loaded {}", when,
                                     MemText(g.mem_bytes), power, causes)});
  }
  if (r.gpu_util_median_pct) ev->push_back({"median GPU utilisation", Pct(*r.gpu_util_median_pct)});
  if (r.gpu_util_below_low_pct)
    ev->push_back({fmt::format("samples under {:.0f}% utilisation", kGpuLowUtilPct), Pct(*r.gpu_util_below_low_pct)});
}

// The GPUs the utilisation figures are over, as the subject of a sentence: "the GPU is", "the
// 8 GPUs are", "the 3 GPUs in use are" (ResourceSignals: unused GPUs beside busy ones are not in
// the mean); `plural` for the pronouns that follow.
struct GpusSubject {
  std::string text;
  bool plural = false;
};
inline GpusSubject GpusAre(const ResourceSignals& r) {
  int sampled = 0, in_use = 0;
  for (const auto& g : r.gpus)
    if (g.util_mean_pct) ++sampled, in_use += !g.unused;
  if (sampled <= 1) return {"the GPU is", false};
  if (in_use == 0 || in_use == sampled) return {fmt::format("the {} GPUs are", sampled), true};
  if (in_use == 1) return {"the GPU in use is", false};
  return {fmt::format("the {} GPUs in use are", in_use), true};
}

// "10.6 GiB of 24.0 GiB (44.2%)", "10.6 GiB" without a total, "44.2%" from a share-only series;
// empty where the log holds no memory figure for the GPU.
inline std::string GpuMemoryPeakText(const GpuResource& g) {
  if (g.mem_used_peak_bytes && g.mem_total_bytes)
    return fmt::format("{} of {} ({})", MemText(*g.mem_used_peak_bytes), MemText(*g.mem_total_bytes),
                       Pct(g.mem_used_peak_pct.value_or(0)));
  if (g.mem_used_peak_bytes) return MemText(*g.mem_used_peak_bytes);
  if (g.mem_used_peak_pct) return Pct(*g.mem_used_peak_pct);
  return "";
}

// "GPU 0 memory peak" lines for the GPUs the utilisation figures are over (those in use, or all
// when none is), whatever form the log gives memory in; none where it holds no memory column.
inline void AddGpuMemoryEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  const bool any_in_use = r.gpus_in_use > 0;
  size_t shown = 0, more = 0;
  for (const auto& g : r.gpus) {
    if (any_in_use && g.unused) continue;
    std::string s = GpuMemoryPeakText(g);
    if (s.empty()) continue;
    if (shown == 8) { ++more; continue; }
    ev->push_back({fmt::format("GPU {} memory peak", g.index), s});
    ++shown;
  }
  if (more) ev->push_back({"GPU memory peaks", fmt::format("{} more GPUs not listed", more)});
}

// "memory used peak 4 MiB of 79.6 GiB, power 73.2 W (of 700 W)": what a GPU log without
// utilisation says about one GPU.
inline std::string GpuMemoryAndPowerText(const GpuResource& g) {
  std::string s;
  if (std::string m = GpuMemoryPeakText(g); !m.empty())
    s = g.mem_used_peak_bytes && g.mem_total_bytes
            ? fmt::format("memory used peak {} of {}", MemText(*g.mem_used_peak_bytes), MemText(*g.mem_total_bytes))
            : "memory used peak " + m;
  if (g.power_mean_w)
    s += fmt::format("{}power {:.1f} W{}", s.empty() ? "" : ", ", *g.power_mean_w,
                     g.power_limit_w ? fmt::format(" of its {:.0f} W limit", *g.power_limit_w) : "");
  return s;
}

// "12.0 MB/s", "?" where not sampled: a pair on one line keeps its place.
inline std::string MBpsOr(const std::optional<double>& bytes_per_s) { return bytes_per_s ? MBps(*bytes_per_s) : "?"; }
inline std::string PctOr(const std::optional<double>& pct) { return pct ? Pct(*pct) : "?"; }

// Evidence lines for whichever storage indicators were recorded (a line only where one of its
// figures was sampled; an unsampled one reads "?", never 0).
inline void AddStorageEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  if (r.tree_read_bytes_per_s || r.tree_write_bytes_per_s)
    ev->push_back({"job's disk reads / writes", fmt::format("{} / {}", MBpsOr(r.tree_read_bytes_per_s), MBpsOr(r.tree_write_bytes_per_s))});
  if (r.tree_blocked_pct) ev->push_back({"samples with a process waiting on disk (D state)", Pct(*r.tree_blocked_pct)});
  if (r.disk_read_bytes_per_s || r.disk_write_bytes_per_s || r.disk_util_mean_pct)
    ev->push_back({"disks: reads / writes / busiest disk busy",
                   fmt::format("{} / {} / {}", MBpsOr(r.disk_read_bytes_per_s), MBpsOr(r.disk_write_bytes_per_s),
                               PctOr(r.disk_util_mean_pct))});
  if (r.iowait_mean_pct) ev->push_back({"CPU iowait (machine)", Pct(*r.iowait_mean_pct)});
  if (r.psi_io_some_mean_pct) ev->push_back({"I/O pressure (PSI some)", Pct(*r.psi_io_some_mean_pct)});
}

// "processes / threads (peak)" where both were sampled.
inline void AddTreeSizeEvidence(const ResourceSignals& r, std::vector<EvidenceItem>* ev) {
  if (r.tree_procs_max && r.tree_threads_max)
    ev->push_back({"processes / threads (peak)", fmt::format("{:.0f} / {:.0f}", *r.tree_procs_max, *r.tree_threads_max)});
}

}  // namespace stepdoctor::rules
