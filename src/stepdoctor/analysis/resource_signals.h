// Resource samples (Trace::counters from `run`/`watch` samples files, nvidia-smi CSV logs,
// SageMaker system metrics) -> the aggregates the resource rules read, and a one-word
// classification of what bounded the job. Series names are those of docs/samples-format.md.
#pragma once

#include <memory>
#include <optional>
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

// Every figure the samples may lack is a std::optional, empty where its series was not sampled
// (or, for a derived figure, where what it derives from was not): never -1 or 0 for "unknown".
// Readers test for a value before they show it, so an unsampled figure is never reported as 0.

struct GpuResource {
  int index = 0;
  std::string name;
  // Empty without a utilisation series (a log may hold only memory and power).
  std::optional<double> util_mean_pct, util_peak_pct;
  // Utilisation never reached kUnusedGpuPeakPct; without utilisation, used memory never
  // reached kNoProcessMemBytes (no process holds a CUDA context there, so none ran kernels).
  bool unused = false;
  std::optional<double> mem_used_peak_bytes;
  // Samples of used memory, and those at kHeldMemoryBytes or more: a process holding memory for
  // most of the log waits there; one that passed it in a few samples touched the GPU and left.
  int mem_samples = 0, mem_held_samples = 0;
  std::optional<double> mem_total_bytes;    // empty where not sampled or sampled as 0
  std::optional<double> mem_used_peak_pct;  // from used / total, or a "memory used %" series
  // Samples whose used memory is kMemoryNearFullPct of the total or more, and the highest
  // utilisation sampled at those times (empty without a utilisation sample there): memory that
  // is near full only while the GPU computes nothing was reserved, not filled by work.
  int mem_near_full_samples = 0;
  std::optional<double> util_peak_near_full_pct;
  // Memory reserved at once: the largest rise between two samples with the GPU computing nothing
  // in either (utilisation under kUnusedGpuPeakPct), where it is kReserveJumpShare of the total or
  // more and brings the memory near its peak (a runtime's pool: vLLM, TensorFlow without memory
  // growth, JAX's preallocation), from and to.
  std::optional<double> reserve_from_bytes, reserve_to_bytes;
  std::optional<double> power_mean_w;
  std::optional<double> power_limit_w;      // empty where not sampled or sampled as 0
};

// Leading samples of the GPUs in use below kIdleGpuUtilPct before their first work: the job
// starting (loading data and the model), not its steps. Only where one is worth reporting.
// The utilisation figures (ResourceSignals) are over the samples after it, as a trace's warm-up
// step is kept out of its figures: the steps are what is judged; this keeps the figure with it.
struct GpuStartup {
  int samples = 0;  // > 0
  int gpu = 0;      // the GPU whose leading samples it is (the first in use)
  double duration_s = 0;
  int64_t end_ns = 0;  // the first sample of work
  std::optional<double> mem_from_bytes, mem_to_bytes;  // used memory over it (the first GPU in use)
  double util_after_pct = 0;                           // mean utilisation after it, same GPUs as gpu_util_mean_pct
  double util_with_pct = 0;                            // the same over the job's samples, start-up included
  double mean_pct = 0;                                 // the first GPU's mean utilisation over it
};

// Where a GPU log spans more than the job: GPU memory back at its baseline (no process holds a
// context: under kNoProcessMemBytes above the log's lowest reading) with the GPU idle, between
// runs of the job or after it ended. Those samples are not the job's: the utilisation figures
// leave them out, and this says what was left out. Only where they are kNoProcessMinSharePct of
// the log or more, wherever they lie: a log started before the job (or before it first touched the
// GPU) opens with samples no process holds, which are no more the job's GPU time than those after it
// ended. A start-up with memory held (the job loading its model) is the job's own (GpuStartup).
// Never in samples of the job's own process tree (`run`), which span the job's life.
struct GpuRuns {
  struct Run {
    double start_s = 0, duration_s = 0;  // from the log's first sample
    int samples = 0;
    double util_mean_pct = 0;  // of the first GPU in use
    double util_peak_pct = 0;
    std::optional<double> mem_peak_bytes;  // its memory used over the run, where logged
  };
  int gpu_index = -1;         // the first GPU in use, whose samples time the runs
  std::vector<Run> runs;      // the stretches a process held the first GPU in use, in order
  int excluded_samples = 0;   // its samples with no process on it, leading ones included
  double excluded_pct = 0;    // of its samples
  double excluded_s = 0;
  bool leading = false;       // the log opens with no process on the GPU
  bool trailing = false;      // the log goes on after the last run
  double baseline_bytes = 0;  // its memory used with no process
  double log_util_mean_pct = 0;  // over the whole log, the same GPUs as gpu_util_mean_pct
};

// The longest stretch the first GPU in use sat idle (under kIdleGpuUtilPct) while memory stayed
// held (kHeldMemoryBytes or more), after any start-up: the job paused with its model loaded
// (evaluation on the CPU, checkpointing, a hang). Only where it is at least kIdleStretchMinSamples
// samples and kIdleStretchMinSharePct of the job's samples.
struct GpuIdleStretch {
  double start_s = 0, duration_s = 0;  // from the log's first sample
  int samples = 0;
  double share_pct = 0;  // of the job's samples of that GPU
  double mem_bytes = 0;  // memory used over it (its largest reading)
  double interval_s = 0;  // the log's sampling interval: snapshots this far apart
  bool power_checked = false;  // its samples drew idle power too (IdlePowerCeiling)
  int busy_before = 0;         // samples of work before it
  bool early = false;          // under kEarlyStretchBusyShare of the job's samples of work came before it
};

// Dips of the primary utilisation series (GPU util, else the tree's CPU, else machine CPU),
// looked for where its median is at least kDipBaselineMinPct.
struct UtilisationDips {
  std::string series;
  double baseline_pct = 0;  // the series' median
  int count = 0;            // drops below kDipFraction of the baseline (0: none)
  double share_pct = 0;     // of samples
  std::optional<double> mean_s;               // mean dip length; empty without dips
  std::optional<double> period_s, period_cv;  // spacing of dip starts; empty under two dips
};

struct ResourceSignals {
  WorkerId worker;                // the worker whose samples these are
  std::string source;             // its file
  int64_t samples = 0;
  double window_s = 0;
  double interval_s = 0;          // median spacing of samples
  // Samples GpuRuns leaves out (no process on the GPU): the job's own are `samples` less these,
  // and a verdict needs kMinSamples of them.
  int64_t samples_left_out = 0;
  int64_t job_samples() const { return samples - samples_left_out; }
  // Holes in the sampling: spacings of kSampleGapFactor x interval_s or more (the logger stalled
  // or was paused); the figures cover the sampled time only.
  int sample_gaps = 0;
  double sample_gap_s = 0;        // their time in all, beyond the usual spacing
  double sample_gap_max_s = 0;
  bool times_known = true;        // false: the file states no times; order is real, spacing assumed
  bool one_stamp = false;         // of those, all stamped with one time (the log shorter than its clock's step)

  // Host (machine-wide, % of all cores).
  std::optional<int> cores;                     // from per-core series
  std::optional<double> cpu_mean_pct;           // the total, or the mean of the per-core series
  std::optional<double> iowait_mean_pct;
  std::optional<double> other_cores_busy_pct;   // mean busy % of the cores the tree does not use

  // The sampled process tree (% of one core, like top: 200 = two cores); tree_cpu_mean_pct is
  // empty where no tree was sampled (a GPU log, SageMaker metrics).
  std::optional<double> tree_cpu_mean_pct;
  std::optional<double> tree_cpu_wait_mean_pct;  // runnable but waiting for a CPU (schedstat), % of one core
  std::optional<double> tree_cpu_demand_pct;     // on a CPU + waiting for one: what the job wanted (ClassifyResources)
  std::optional<double> tree_cpu_of_cores_pct;   // tree_cpu_demand_pct / cores (one core where cores is unknown)
  std::optional<double> tree_threads_max, tree_procs_max, tree_rss_peak_bytes;
  std::optional<double> tree_read_bytes_per_s, tree_write_bytes_per_s;  // means, block layer
  std::optional<double> tree_blocked_pct;        // share of samples with a tree process in D state

  // Disks and pressure.
  std::optional<double> disk_read_bytes_per_s, disk_write_bytes_per_s, disk_util_mean_pct;
  std::optional<double> psi_io_some_mean_pct;

  std::vector<GpuResource> gpus;
  // Over the GPUs in use (all GPUs when none is) and their samples; empty without GPU
  // utilisation. An unused GPU beside busy ones is its own finding (idle_gpu), not a lower mean.
  std::optional<double> gpu_util_mean_pct;
  std::optional<double> gpu_util_median_pct;     // same GPUs, all their samples pooled
  std::optional<double> gpu_util_below_low_pct;  // share of those samples below kGpuLowUtilPct
  int gpus_in_use = 0;                           // GPUs not unused
  std::optional<GpuStartup> gpu_startup;         // over the GPUs in use
  // Where the log spans several runs or outlasts the job: the figures above (and each judged
  // GPU's util_mean_pct) are over the samples a process held the GPU, and this says so.
  std::optional<GpuRuns> gpu_runs;
  std::optional<GpuIdleStretch> gpu_idle_stretch;  // over the job's samples, after any start-up

  // Empty without a primary series of kMinSamples (after any start-up) or with its median
  // under kDipBaselineMinPct.
  std::optional<UtilisationDips> dips;

  // Derived conditions, shared by rules and classification.
  bool cpu_high = false;          // tree (or machine) uses most cores, or one core is saturated
  bool one_core_saturated = false;
  bool storage_busy = false;      // any storage indicator above its threshold
  ResourceClass classification = ResourceClass::kUnknown;
};

// Resource signals of the worker with the most samples; nullptr when the trace has fewer than
// kMinSamples samples of any series we read.
std::unique_ptr<ResourceSignals> ComputeResourceSignals(const Trace& trace);

// The most samples any one resource series of `trace` holds (0 without resource series): what a
// report says when there are too few (under kMinSamples) to compute the signals above.
int64_t MostResourceSamples(const Trace& trace);

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
