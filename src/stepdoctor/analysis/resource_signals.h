// Resource samples (Trace::counters from `run`/`watch` samples files, nvidia-smi CSV logs,
// SageMaker system metrics) -> the aggregates the resource rules read, and a one-word
// classification of what bounded the job. Series names are those of docs/samples-format.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// Thresholds shared by the classification and the rules are in analysis/rules/thresholds.h.

// What bounded the job, as far as resources tell.
enum class ResourceClass : uint8_t {
  kUnknown,        // too few samples, or signals that agree with nothing below
  kGpuBusy,        // GPUs utilised (>= kGpuLowUtilPct): look at a profile for what runs on them
  kGpuStarvedCpu,  // GPUs low while the process tree's CPU is high: input preprocessing
  kStorageBound,   // GPU (if any) and CPU low while the disk is busy or the job waits on I/O
  kGpuLow,         // GPUs low and no host data (or nothing on the host explains it)
  kSerialCpu,      // CPU-only: one core saturated while the others idle
  kCpuBound,       // CPU-only: the tree keeps most cores busy
  kIdle,           // neither CPU, disk nor GPU busy: sleeping, waiting on the network or a lock
  kGpuUnused,      // GPU samples only (or a host that explains nothing), and no GPU ran work
  kGpuUtilUnknown, // GPU samples without utilisation, memory held: how busy cannot be told
};
const char* ResourceClassName(ResourceClass c);  // "gpu_starved_cpu", "storage_bound", ...

struct GpuResource {
  int index = 0;
  std::string name;
  bool has_util = true;  // a utilisation series was sampled (a log may hold only memory and power)
  double util_mean_pct = 0;
  double util_peak_pct = 0;
  // Utilisation never reached kUnusedGpuPeakPct; without utilisation, used memory never
  // reached kNoProcessMemBytes (no process holds a CUDA context there, so none ran kernels).
  bool unused = false;
  bool has_mem_used = false;
  double mem_used_peak_bytes = 0, mem_total_bytes = 0;
  double mem_used_peak_pct = -1;  // -1 where unknown
  double power_mean_w = -1, power_limit_w = -1;  // -1 where not sampled
};

// Leading samples of the GPUs in use below kIdleGpuUtilPct before their first work: the job
// starting (loading data and the model), not its steps.
struct GpuStartup {
  int samples = 0;  // 0: no start-up stretch worth reporting
  double duration_s = 0;
  double mem_from_bytes = -1, mem_to_bytes = -1;  // used memory over it (the first GPU in use); -1 unknown
  double util_after_pct = -1;                     // mean utilisation after it, same GPUs as gpu_util_mean_pct
};

struct ResourceSignals {
  WorkerId worker;                // the worker whose samples these are
  std::string source;             // its file
  int64_t samples = 0;
  double window_s = 0;
  double interval_s = 0;          // median spacing of samples
  bool times_known = true;        // false: the file states no times; order is real, spacing assumed

  // Host (machine-wide, % of all cores).
  int cores = 0;                  // from per-core series; 0 where unknown
  bool has_machine_cpu = false;
  double cpu_mean_pct = 0;
  double iowait_mean_pct = 0;
  double other_cores_busy_pct = -1;  // mean busy % of the cores the tree does not use; -1 unknown

  // The sampled process tree (% of one core, like top: 200 = two cores).
  bool has_tree = false;
  double tree_cpu_mean_pct = 0;
  double tree_cpu_wait_mean_pct = 0; // runnable but waiting for a CPU (schedstat), % of one core
  double tree_cpu_demand_pct = 0;    // on a CPU + waiting for one: what the job wanted
  double tree_cpu_of_cores_pct = 0;  // tree_cpu_demand_pct / cores
  double tree_threads_max = 0, tree_procs_max = 0, tree_rss_peak_bytes = 0;
  double tree_read_bytes_per_s = 0, tree_write_bytes_per_s = 0;  // means, block layer
  double tree_blocked_pct = 0;       // share of samples with a tree process in D state

  // Disks and pressure.
  bool has_disk = false;
  double disk_read_bytes_per_s = 0, disk_write_bytes_per_s = 0, disk_util_mean_pct = 0;
  bool has_psi = false;
  double psi_io_some_mean_pct = 0;

  std::vector<GpuResource> gpus;
  // Over the GPUs in use (all GPUs when none is) and their samples; -1 without GPU series. An
  // unused GPU beside busy ones is its own finding (idle_gpu), not a lower mean.
  double gpu_util_mean_pct = -1;
  double gpu_util_median_pct = -1;     // same GPUs, all their samples pooled
  double gpu_util_below_low_pct = -1;  // share of those samples below kGpuLowUtilPct
  int gpus_in_use = 0;                 // GPUs not unused
  GpuStartup gpu_startup;              // over the GPUs in use; samples == 0 where none

  // Dips of the primary utilisation series (GPU util, else the tree's CPU, else machine CPU).
  std::string dip_series;
  double dip_baseline_pct = 0;    // the series' median
  int dip_count = 0;
  double dip_period_s = 0, dip_period_cv = 0;
  double dip_share_pct = 0;       // of samples
  double dip_mean_s = 0;

  // Derived conditions, shared by rules and classification.
  bool cpu_high = false;          // tree (or machine) uses most cores, or one core is saturated
  bool one_core_saturated = false;
  bool storage_busy = false;      // any storage indicator above its threshold
  ResourceClass classification = ResourceClass::kUnknown;
};

// Resource signals of the worker with the most samples; nullptr when the trace has fewer than
// kMinSamples samples of any series we read.
std::unique_ptr<ResourceSignals> ComputeResourceSignals(const Trace& trace);

// Applies the thresholds above to the aggregates (cpu_high ... classification). Split out so
// tests can set aggregates directly and check both sides of each threshold.
void ClassifyResources(ResourceSignals* r);

// The workers whose resource samples overlap `chosen`'s in time, `chosen` first: the ranks of
// one job, each with its own samples file (`srun stepdoctor run -- ...` on every node), read
// together from a folder.
std::vector<WorkerId> SampledJobWorkers(const Trace& trace, WorkerId chosen);

// "3 samples files of one job (ranks 0, 1, 2 on 2 hosts): resource figures are for node-a rank
// 0, the one with the most samples"; empty when `job` holds fewer than two workers.
std::string SampledJobNote(const Trace& trace, const std::vector<WorkerId>& job);

// Downsampled series for charts (GPU util and memory, tree and machine CPU, disk, iowait) of
// the same worker, times in seconds from its first sample.
std::vector<TimeSeries> ResourceSeriesForCharts(const Trace& trace, WorkerId worker, int max_points = 600);

}  // namespace stepdoctor
