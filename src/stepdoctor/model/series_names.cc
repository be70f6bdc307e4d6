#include "stepdoctor/model/series_names.h"

namespace stepdoctor::series {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The N of "<prefix>N<suffix>", or -1.
int IndexIn(std::string_view s, std::string_view prefix, std::string_view suffix) {
  if (s.substr(0, prefix.size()) != prefix || !EndsWith(s, suffix) || s.size() <= prefix.size() + suffix.size())
    return -1;
  std::string_view mid = s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
  int n = 0;
  for (char c : mid) {
    if (c < '0' || c > '9' || n > 100000) return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

std::string CpuCoreSeriesName(int core) { return "cpu_core" + std::to_string(core) + "_pct"; }
int CpuCoreOf(std::string_view name) { return IndexIn(name, "cpu_core", "_pct"); }

std::string DiskSeriesName(std::string_view disk, DiskMetric m) {
  std::string_view suffix = m == DiskMetric::kReadBytesPerS    ? "_read_bytes_per_s"
                            : m == DiskMetric::kWriteBytesPerS ? "_write_bytes_per_s"
                                                               : "_util_pct";
  return "disk_" + std::string(disk) + std::string(suffix);
}

std::string PsiSeriesName(std::string_view resource, bool full) {
  return "psi_" + std::string(resource) + (full ? "_full_pct" : "_some_pct");
}

std::string_view GpuMetricSuffix(GpuMetric m) {
  switch (m) {
    case GpuMetric::kUtilPct: return "util_pct";
    case GpuMetric::kMemUtilPct: return "mem_util_pct";
    case GpuMetric::kMemUsedBytes: return "mem_used_bytes";
    case GpuMetric::kMemTotalBytes: return "mem_total_bytes";
    case GpuMetric::kMemUsedPct: return "mem_used_pct";
    case GpuMetric::kPowerW: return "power_w";
    case GpuMetric::kPowerLimitW: return "power_limit_w";
    case GpuMetric::kSmClockMhz: return "sm_clock_mhz";
    case GpuMetric::kTempCelsius: return "temp_celsius";
    case GpuMetric::kPcieRxBytesPerS: return "pcie_rx_bytes_per_s";
    case GpuMetric::kPcieTxBytesPerS: return "pcie_tx_bytes_per_s";
    case GpuMetric::kProcMemBytes: return "proc_mem_bytes";
    case GpuMetric::kAllocatedBytes: return "memory_allocated_bytes";
    case GpuMetric::kReservedBytes: return "memory_reserved_bytes";
  }
  return "";
}

std::string GpuSeriesName(int index, GpuMetric m) {
  return "gpu" + std::to_string(index) + "_" + std::string(GpuMetricSuffix(m));
}

int GpuIndexOf(std::string_view s) {
  if (s.substr(0, 3) != "gpu") return -1;
  size_t i = 3;
  int n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 8) n = n * 10 + (s[i++] - '0');
  if (i == 3 || i >= s.size() || s[i] != '_') return -1;
  return n;
}

bool IsGpuSeries(std::string_view name, GpuMetric m, int* index) {
  int g = IndexIn(name, "gpu", "_" + std::string(GpuMetricSuffix(m)));
  if (g < 0) return false;
  if (index) *index = g;
  return true;
}

std::string_view SeriesUnit(std::string_view name) {
  if (EndsWith(name, "_pct")) return "%";
  if (EndsWith(name, "_bytes_per_s")) return "bytes/s";
  if (EndsWith(name, "_bytes")) return "bytes";
  if (EndsWith(name, "_per_s")) return "1/s";
  if (EndsWith(name, "_w")) return "W";
  if (EndsWith(name, "_mhz")) return "MHz";
  return "count";
}

std::string_view MemoryCategoryName(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParameter: return "parameter";
    case MemoryCategory::kOptimizerState: return "optimizer_state";
    case MemoryCategory::kInput: return "input";
    case MemoryCategory::kTemporary: return "temporary";
    case MemoryCategory::kActivation: return "activation";
    case MemoryCategory::kGradient: return "gradient";
    case MemoryCategory::kAutogradDetail: return "autograd_detail";
    case MemoryCategory::kUnknown:
    case MemoryCategory::kCount_: break;
  }
  return "unknown";
}

std::string MemoryTimelineSeriesName(MemoryCategory c) {
  return std::string(kMemoryTimelinePrefix) + std::string(MemoryCategoryName(c)) + "_bytes";
}

bool InSeriesFamily(std::string_view n) {
  for (std::string_view p : {kGpuPrefix, kCpuPrefix, kProcPrefix, kDiskPrefix})
    if (n.substr(0, p.size()) == p) return true;
  return n == kIowaitPct;
}

bool IsAllocatorSeries(std::string_view n) {
  return n == kHostAllocatedBytes || n == kHostReservedBytes || IsGpuSeries(n, GpuMetric::kAllocatedBytes, nullptr) ||
         IsGpuSeries(n, GpuMetric::kReservedBytes, nullptr);
}

}  // namespace stepdoctor::series
