// The names of counter series (Trace::counters), defined once: the live samplers write them,
// the importers (samples files, nvidia-smi CSV, SageMaker metrics, Kineto memory events) map
// their inputs onto them, and the analyses read them. docs/samples-format.md lists them for
// users. A unit follows from the name's suffix (SeriesUnit).
#pragma once

#include <string>
#include <string_view>

namespace stepdoctor::series {

// Name families: every GPU series starts "gpu", host CPU ones "cpu_", the process tree's
// "proc_", disk ones "disk_".
inline constexpr std::string_view kGpuPrefix = "gpu";
inline constexpr std::string_view kCpuPrefix = "cpu_";
inline constexpr std::string_view kProcPrefix = "proc_";
inline constexpr std::string_view kDiskPrefix = "disk_";

// Host, machine-wide (% of all cores).
inline constexpr std::string_view kCpuPctTotal = "cpu_pct_total";
inline constexpr std::string_view kCpuUserPct = "cpu_user_pct";
inline constexpr std::string_view kCpuSystemPct = "cpu_system_pct";
inline constexpr std::string_view kIowaitPct = "iowait_pct";
inline constexpr std::string_view kStealPct = "steal_pct";
inline constexpr std::string_view kMemTotalBytes = "mem_total_bytes";
inline constexpr std::string_view kMemAvailableBytes = "mem_available_bytes";
inline constexpr std::string_view kNetRxBytesPerS = "net_rx_bytes_per_s";
inline constexpr std::string_view kNetTxBytesPerS = "net_tx_bytes_per_s";
// Disks: the sum over disks (the busiest one for util), and per disk (DiskSeriesName).
inline constexpr std::string_view kDiskReadBytesPerS = "disk_read_bytes_per_s";
inline constexpr std::string_view kDiskWriteBytesPerS = "disk_write_bytes_per_s";
inline constexpr std::string_view kDiskUtilPct = "disk_util_pct";
inline constexpr std::string_view kPsiIoSomePct = "psi_io_some_pct";

// The sampled process tree (% of one core, like top).
inline constexpr std::string_view kProcCount = "proc_count";
inline constexpr std::string_view kProcThreads = "proc_threads";
inline constexpr std::string_view kProcRssBytes = "proc_rss_bytes";
inline constexpr std::string_view kProcBlockedIo = "proc_blocked_io";
inline constexpr std::string_view kProcCpuPct = "proc_cpu_pct";
inline constexpr std::string_view kProcCpuWaitPct = "proc_cpu_wait_pct";
inline constexpr std::string_view kProcMinfltPerS = "proc_minflt_per_s";
inline constexpr std::string_view kProcMajfltPerS = "proc_majflt_per_s";
inline constexpr std::string_view kProcReadBytesPerS = "proc_read_bytes_per_s";
inline constexpr std::string_view kProcWriteBytesPerS = "proc_write_bytes_per_s";
inline constexpr std::string_view kProcRcharBytesPerS = "proc_rchar_bytes_per_s";
inline constexpr std::string_view kProcWcharBytesPerS = "proc_wchar_bytes_per_s";

// "cpu_core<N>_pct": one core's busy %.
std::string CpuCoreSeriesName(int core);
// The N of "cpu_core<N>_pct", or -1.
int CpuCoreOf(std::string_view name);

enum class DiskMetric { kReadBytesPerS, kWriteBytesPerS, kUtilPct };
// "disk_<disk>_read_bytes_per_s", ...
std::string DiskSeriesName(std::string_view disk, DiskMetric m);

// "psi_<resource>_some_pct" / "psi_<resource>_full_pct" (resource: cpu, memory, io).
std::string PsiSeriesName(std::string_view resource, bool full);

// Per-GPU series, "gpu<N>_<suffix>".
enum class GpuMetric {
  kUtilPct,              // util_pct: share of time a kernel ran (NVML, nvidia-smi utilization.gpu)
  kMemUtilPct,           // mem_util_pct: share of time device memory was read or written
  kMemUsedBytes,         // mem_used_bytes
  kMemTotalBytes,        // mem_total_bytes
  kMemUsedPct,           // mem_used_pct: memory used as % of total (SageMaker)
  kPowerW,               // power_w
  kPowerLimitW,          // power_limit_w: the enforced power cap (nvidia-smi power.limit)
  kSmClockMhz,           // sm_clock_mhz
  kTempCelsius,          // temp_celsius
  kPcieRxBytesPerS,      // pcie_rx_bytes_per_s
  kPcieTxBytesPerS,      // pcie_tx_bytes_per_s
  kProcMemBytes,         // proc_mem_bytes: memory the sampled process tree holds on the GPU
  kAllocatedBytes,       // memory_allocated_bytes: the framework allocator's total (Kineto)
  kReservedBytes,        // memory_reserved_bytes: the allocator's reserved total (Kineto)
};
std::string_view GpuMetricSuffix(GpuMetric m);  // "util_pct", ...
std::string GpuSeriesName(int index, GpuMetric m);  // "gpu0_util_pct"
// The GPU index of a series named gpu<N>_..., or -1.
int GpuIndexOf(std::string_view name);
// True when `name` is "gpu<N>_<suffix of m>"; sets *index to N.
bool IsGpuSeries(std::string_view name, GpuMetric m, int* index);
// A series in one of the families above (gpu*, cpu_*, proc_*, disk_*, iowait_pct): a name a
// trace's own counters must not take (TF's "cpu_pool" and "gpu_bfc" allocator counters).
bool InSeriesFamily(std::string_view name);
// The allocator's running totals from a profiler's memory events (Kineto's [memory]): counted
// by the framework, not sampled from the machine.
bool IsAllocatorSeries(std::string_view name);

// Kineto's host allocator totals (a "[memory]" event whose device is the CPU).
inline constexpr std::string_view kHostAllocatedBytes = "cpu_memory_allocated_bytes";
inline constexpr std::string_view kHostReservedBytes = "cpu_memory_reserved_bytes";

// PyTorch's memory timeline (torch.profiler's export_memory_timeline): the bytes of one device
// held by each category of tensor, in the profiler's own order (its category index).
enum class MemoryCategory : uint8_t {
  kParameter, kOptimizerState, kInput, kTemporary, kActivation, kGradient, kAutogradDetail, kUnknown, kCount_
};
inline constexpr int kMemoryCategoryCount = static_cast<int>(MemoryCategory::kCount_);
// "parameter", "optimizer_state", "input", "temporary", "activation", "gradient",
// "autograd_detail", "unknown".
std::string_view MemoryCategoryName(MemoryCategory c);
// "memory_timeline_<category>_bytes": the timeline's series, one per category.
inline constexpr std::string_view kMemoryTimelinePrefix = "memory_timeline_";
std::string MemoryTimelineSeriesName(MemoryCategory c);

// The unit of a series from its name's suffix: "_pct" -> "%", "_bytes_per_s" -> "bytes/s",
// "_bytes" -> "bytes", "_per_s" -> "1/s", "_w" -> "W", "_mhz" -> "MHz", otherwise "count".
std::string_view SeriesUnit(std::string_view name);

}  // namespace stepdoctor::series
