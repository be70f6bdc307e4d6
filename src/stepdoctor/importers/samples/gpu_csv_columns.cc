#include "stepdoctor/importers/samples/gpu_csv_columns.h"

#include <vector>

#include "stepdoctor/importers/samples/csv_fields.h"

namespace stepdoctor::gpucsv {
namespace {

using series::GpuMetric;
using K = ColumnKind;

struct Alias {
  std::string_view name;  // normalised: lower case, '_' between words, no unit
  ColumnKind kind;
  GpuMetric metric = GpuMetric::kUtilPct;
};

// Every spelling we read, after NormaliseHeader. nvidia-smi's --query-gpu names first, then
// what training scripts and home-made monitors write for the same thing.
constexpr Alias kAliases[] = {
    {"timestamp", K::kTimestamp},
    {"time", K::kTimestamp},
    {"time_stamp", K::kTimestamp},
    {"unix_time", K::kTimestamp},
    {"epoch", K::kTimestamp},
    {"datetime", K::kTimestamp},
    {"date_time", K::kTimestamp},
    {"wall_time", K::kTimestamp},
    {"t", K::kTimestamp},
    {"ts", K::kTimestamp},
    {"date", K::kDate},
    {"elapsed", K::kElapsed},
    {"elapsed_time", K::kElapsed},
    {"seconds", K::kElapsed},
    {"index", K::kGpuIndex},
    {"gpu_index", K::kGpuIndex},
    {"gpu", K::kGpuIndex},
    {"gpu_id", K::kGpuIndex},
    {"gpu_idx", K::kGpuIndex},
    {"device", K::kGpuIndex},
    {"device_id", K::kGpuIndex},
    {"device_index", K::kGpuIndex},
    {"uuid", K::kGpuUuid},
    {"gpu_uuid", K::kGpuUuid},
    {"pci_bus_id", K::kGpuBusId},
    {"bus_id", K::kGpuBusId},
    {"gpu_bus_id", K::kGpuBusId},
    {"name", K::kGpuName},
    {"gpu_name", K::kGpuName},
    {"product_name", K::kGpuName},
    {"utilization_gpu", K::kMetric, GpuMetric::kUtilPct},
    {"utilisation_gpu", K::kMetric, GpuMetric::kUtilPct},
    {"gpu_utilization", K::kMetric, GpuMetric::kUtilPct},
    {"gpu_utilisation", K::kMetric, GpuMetric::kUtilPct},
    {"gpu_util", K::kMetric, GpuMetric::kUtilPct},
    {"utilization", K::kMetric, GpuMetric::kUtilPct},
    {"utilisation", K::kMetric, GpuMetric::kUtilPct},
    {"util", K::kMetric, GpuMetric::kUtilPct},
    {"gpu_usage", K::kMetric, GpuMetric::kUtilPct},
    {"gpu_load", K::kMetric, GpuMetric::kUtilPct},
    {"utilization_memory", K::kMetric, GpuMetric::kMemUtilPct},
    {"utilisation_memory", K::kMetric, GpuMetric::kMemUtilPct},
    {"memory_utilization", K::kMetric, GpuMetric::kMemUtilPct},
    {"memory_utilisation", K::kMetric, GpuMetric::kMemUtilPct},
    {"mem_utilization", K::kMetric, GpuMetric::kMemUtilPct},
    {"mem_util", K::kMetric, GpuMetric::kMemUtilPct},
    {"memory_util", K::kMetric, GpuMetric::kMemUtilPct},
    {"memory_used", K::kMetric, GpuMetric::kMemUsedBytes},
    {"mem_used", K::kMetric, GpuMetric::kMemUsedBytes},
    {"used_memory", K::kMetric, GpuMetric::kMemUsedBytes},
    {"gpu_memory_used", K::kMetric, GpuMetric::kMemUsedBytes},
    {"gpu_mem_used", K::kMetric, GpuMetric::kMemUsedBytes},
    {"memory_usage", K::kMetric, GpuMetric::kMemUsedBytes},
    {"mem_usage", K::kMetric, GpuMetric::kMemUsedBytes},
    {"memory_total", K::kMetric, GpuMetric::kMemTotalBytes},
    {"mem_total", K::kMetric, GpuMetric::kMemTotalBytes},
    {"total_memory", K::kMetric, GpuMetric::kMemTotalBytes},
    {"gpu_memory_total", K::kMetric, GpuMetric::kMemTotalBytes},
    {"memory_max", K::kMetric, GpuMetric::kMemTotalBytes},
    {"memory_free", K::kMemFree},
    {"mem_free", K::kMemFree},
    {"free_memory", K::kMemFree},
    {"gpu_memory_free", K::kMemFree},
    {"mem_max", K::kMetric, GpuMetric::kMemTotalBytes},
    {"power_draw", K::kMetric, GpuMetric::kPowerW},
    {"power_draw_instant", K::kMetric, GpuMetric::kPowerW},
    {"power_draw_average", K::kMetric, GpuMetric::kPowerW},
    {"power", K::kMetric, GpuMetric::kPowerW},
    {"power_used", K::kMetric, GpuMetric::kPowerW},
    {"power_usage", K::kMetric, GpuMetric::kPowerW},
    {"gpu_power", K::kMetric, GpuMetric::kPowerW},
    {"power_limit", K::kMetric, GpuMetric::kPowerLimitW},
    {"enforced_power_limit", K::kMetric, GpuMetric::kPowerLimitW},
    {"power_max", K::kMetric, GpuMetric::kPowerLimitW},
    {"power_cap", K::kMetric, GpuMetric::kPowerLimitW},
    {"clocks_sm", K::kMetric, GpuMetric::kSmClockMhz},
    {"clocks_current_sm", K::kMetric, GpuMetric::kSmClockMhz},
    {"sm_clock", K::kMetric, GpuMetric::kSmClockMhz},
    {"clock_sm", K::kMetric, GpuMetric::kSmClockMhz},
    {"temperature_gpu", K::kMetric, GpuMetric::kTempCelsius},
    {"temperature", K::kMetric, GpuMetric::kTempCelsius},
    {"temp", K::kMetric, GpuMetric::kTempCelsius},
    {"gpu_temp", K::kMetric, GpuMetric::kTempCelsius},
    {"gpu_temperature", K::kMetric, GpuMetric::kTempCelsius},
};

// Words that end a name as its unit: "mem_used_mb", "power_w", "elapsed_sec".
bool IsUnitWord(std::string_view w) {
  for (std::string_view u : {"pct", "percent", "%", "mib", "mb", "gib", "gb", "kib", "kb", "bytes", "w", "watt", "watts",
                             "mhz", "c", "celsius", "s", "sec", "secs", "ms", "us"})
    if (w == u) return true;
  return false;
}

bool IsPercent(std::string_view u) { return u == "%" || u == "pct" || u == "percent"; }

// Seconds per unit of a time column: ms and us; anything else (s, sec, none) is seconds.
double TimeUnitSeconds(std::string_view u) { return u == "ms" ? 1e-3 : u == "us" ? 1e-6 : 1.0; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; }

std::string LowerTrimmed(std::string_view s) {
  std::string out;
  for (char c : csv::Trim(s)) out += Lower(c);
  return out;
}

}  // namespace

NormalisedHeader NormaliseHeader(std::string_view h) {
  h = csv::Trim(h);
  if (h.substr(0, 3) == "\xEF\xBB\xBF") h.remove_prefix(3);  // a BOM before the first name
  NormalisedHeader out;
  std::string& s = out.name;
  for (size_t i = 0; i < h.size(); ++i) {
    char c = h[i];
    if (c == '[' || c == '(') {
      size_t e = h.find(c == '[' ? ']' : ')', i);
      if (out.unit.empty()) out.unit = LowerTrimmed(h.substr(i + 1, e == std::string_view::npos ? e : e - i - 1));
      if (e == std::string_view::npos) break;
      i = e;
    } else if (c == ' ' || c == '_' || c == '.' || c == '-' || c == '/' || c == '\t') {
      if (!s.empty() && s.back() != '_') s += '_';
    } else {
      s += Lower(c);
    }
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (!s.empty() && s.back() == '%') {  // "util%"
    s.pop_back();
    while (!s.empty() && s.back() == '_') s.pop_back();
    if (out.unit.empty()) out.unit = "%";
  }
  if (size_t p = s.rfind('_'); out.unit.empty() && p != std::string::npos && IsUnitWord(std::string_view(s).substr(p + 1))) {
    out.unit = s.substr(p + 1);
    s.resize(p);
  }
  return out;
}

ColumnMeaning ClassifyHeader(std::string_view header) {
  NormalisedHeader h = NormaliseHeader(header);
  // Two words in either order name the same thing: "util_gpu" is "gpu_util", "used_mem" "mem_used".
  std::string swapped;
  if (const size_t p = h.name.find('_'); p != std::string::npos && h.name.find('_', p + 1) == std::string::npos)
    swapped = h.name.substr(p + 1) + "_" + h.name.substr(0, p);
  for (int pass = 0; pass < 2; ++pass)
  for (const Alias& a : kAliases) {
    if (a.name != (pass == 0 ? h.name : swapped)) continue;
    ColumnMeaning m{a.kind, a.metric, 1};
    if (a.kind == K::kTimestamp || a.kind == K::kElapsed) m.scale = TimeUnitSeconds(h.unit);
    if (a.kind == K::kMetric && a.metric == GpuMetric::kMemUsedBytes && IsPercent(h.unit))
      m.metric = GpuMetric::kMemUsedPct;  // "memory used [%]": a share, not an amount
    else if ((a.kind == K::kMetric && (a.metric == GpuMetric::kMemUsedBytes || a.metric == GpuMetric::kMemTotalBytes)) ||
             a.kind == K::kMemFree)
      m.scale = csv::MemoryUnitBytes(h.unit);
    return m;
  }
  return {};
}

bool NamesAGpuMetric(std::string_view line) {
  std::vector<std::string> fields = csv::SplitRecord(line);
  // One column alone must be spelled as a query field (`utilization.gpu [%]`, `gpu_util_pct`):
  // a lone word is more likely prose, like the `Utilization` and `Temperature` section titles
  // of `nvidia-smi -q` printed above a job's CSV.
  if (fields.size() == 1 && fields[0].find_first_of("[._") == std::string::npos) return false;
  for (const std::string& f : fields)
    if (ClassifyHeader(f).kind == K::kMetric) return true;
  return false;
}

std::string_view ExpectedColumnsText() {
  return "expected a header naming a GPU metric column (utilization.gpu, memory.used, gpu_util_pct, "
         "mem_used_mb, power.draw, ...), optionally timestamp or elapsed_sec, and index or gpu_index";
}

}  // namespace stepdoctor::gpucsv
