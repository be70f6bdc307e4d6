#include "stepdoctor/importers/samples/wandb_events_to_trace.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

namespace od = simdjson::ondemand;
using series::GpuMetric;

constexpr std::string_view kSystemPrefix = "system.";
constexpr double kMiB = 1048576.0;  // W&B's "MB" figures are psutil bytes / 2^20

// "system.gpu.<N>.<key>": the GPU metrics that map onto a series as they are (the client reads
// them from NVML). powerPercent is not here: with powerWatts it gives the power limit.
struct GpuKey {
  std::string_view wandb;
  GpuMetric metric;
};
constexpr GpuKey kGpuKeys[] = {
    {"gpu", GpuMetric::kUtilPct},                     // share of time a kernel ran
    {"memory", GpuMetric::kMemUtilPct},               // share of time memory was read or written
    {"memoryAllocated", GpuMetric::kMemUsedPct},      // memory in use, % of the GPU's (no total given)
    {"memoryAllocatedBytes", GpuMetric::kMemUsedBytes},  // newer clients
    {"temp", GpuMetric::kTempCelsius},
    {"powerWatts", GpuMetric::kPowerW},
};

// Splits "<N>.<rest>" into N and rest; false when it does not start with a number and a dot.
bool SplitIndex(std::string_view s, int* index, std::string_view* rest) {
  size_t i = 0;
  int n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 6) n = n * 10 + (s[i++] - '0');
  if (i == 0 || i >= s.size() || s[i] != '.') return false;
  *index = n;
  *rest = s.substr(i + 1);
  return true;
}

// One line's figures, collected before any is emitted: keys come in any order and the time may
// be the last of them.
struct LineFigures {
  std::optional<double> timestamp_s, runtime_s;
  std::vector<std::pair<std::string, double>> series;  // mapped one to one
  std::map<int, std::pair<std::optional<double>, std::optional<double>>> power;  // GPU -> W, %
  std::optional<double> cpu_pct;         // "system.cpu"
  std::vector<std::pair<int, double>> cores;  // "system.cpu.<N>.cpu_percent"
  std::optional<double> host_mem_pct, host_available_mib;
  std::optional<double> net_sent, net_recv;
};

// Files a "system.*" key's number; false when the key is not one we read.
bool FileSystemKey(std::string_view key, double v, LineFigures& f) {
  key.remove_prefix(kSystemPrefix.size());
  int n = 0;
  std::string_view rest;
  if (key.substr(0, 4) == "gpu." && SplitIndex(key.substr(4), &n, &rest)) {
    if (rest == "powerPercent") {
      f.power[n].second = v;
      return true;
    }
    for (const GpuKey& g : kGpuKeys) {
      if (rest != g.wandb) continue;
      if (g.metric == GpuMetric::kPowerW) f.power[n].first = v;
      f.series.emplace_back(series::GpuSeriesName(n, g.metric), v);
      return true;
    }
    return false;
  }
  if (key == "cpu") f.cpu_pct = v;
  else if (key.substr(0, 4) == "cpu." && SplitIndex(key.substr(4), &n, &rest) && rest == "cpu_percent")
    f.cores.emplace_back(n, v);
  else if (key == "memory") f.host_mem_pct = v;  // psutil virtual_memory().percent
  // Despite the "proc." prefix, availableMB is the machine's available memory; rssMB and
  // threads are the one process the client watches (the training script), not its children.
  else if (key == "proc.memory.availableMB") f.host_available_mib = v;
  else if (key == "proc.memory.rssMB") f.series.emplace_back(std::string(series::kProcRssBytes), v * kMiB);
  else if (key == "proc.cpu.threads") f.series.emplace_back(std::string(series::kProcThreads), v);
  else if (key == "network.sent") f.net_sent = v;  // bytes since the run started
  else if (key == "network.recv") f.net_recv = v;
  // "disk" is the share of the root file system's space in use, not how busy the disk is: not
  // disk_util_pct, so it is not read.
  else return false;
  return true;
}

}  // namespace

WandbLineKind ClassifyWandbLine(std::string_view line) {
  if (line.find("\"system.") != std::string_view::npos) return WandbLineKind::kSystemMetrics;
  for (std::string_view k : {"\"_wandb\"", "\"_runtime\"", "\"_timestamp\"", "\"_step\""})
    if (line.find(k) != std::string_view::npos) return WandbLineKind::kHistory;
  return WandbLineKind::kNotWandb;
}

bool WandbEventsImporter::ImportLine(od::document& doc) {
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  LineFigures f;
  uint64_t bad_values = 0;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    const bool timing = key == "_timestamp" || key == "_runtime";
    const bool system = key.substr(0, kSystemPrefix.size()) == kSystemPrefix;
    if (!timing && !system) continue;  // _wandb, and anything else a client adds
    double d;
    if (v.get_double().get(d) || !std::isfinite(d)) {
      if (v.type().error()) return false;  // not even a value: a cut or broken line
      if (timing) continue;                // a line without a readable time: counted below
      // A key we do not read is not a bad value of ours, whatever it holds.
      LineFigures scratch;
      if (FileSystemKey(key, 0, scratch)) ++bad_values;
      continue;
    }
    if (key == "_timestamp") f.timestamp_s = d;
    else if (key == "_runtime") f.runtime_s = d;
    else FileSystemKey(key, d, f);
  }
  trace_.diagnostics.Count(ImportIssue::kBadCounterValue, bad_values);

  // The time: wall clock from _timestamp; seconds since the run started where only _runtime is.
  if (!runtime_only_ && (f.timestamp_s || f.runtime_s)) runtime_only_ = !f.timestamp_s;
  double t_s = 0;
  bool timed = false;
  if (runtime_only_.value_or(false)) {
    if ((timed = f.runtime_s.has_value())) t_s = *f.runtime_s;
  } else if (f.timestamp_s) {
    t_s = *f.timestamp_s, timed = true;
  } else if (f.runtime_s && runtime_offset_s_) {
    t_s = *f.runtime_s + *runtime_offset_s_, timed = true;
  }
  if (f.timestamp_s && f.runtime_s) runtime_offset_s_ = *f.timestamp_s - *f.runtime_s;
  if (!timed) {
    trace_.diagnostics.Count(ImportIssue::kMissingTimestamp);
    return true;
  }
  std::optional<int64_t> ts = SecondsToNs(t_s);
  if (!ts) {
    trace_.diagnostics.Count(ImportIssue::kTimeOutOfRange);
    return true;
  }

  for (const auto& [name, value] : f.series) sink_.Add(name, *ts, value);
  // powerPercent is powerWatts as a share of the enforced power limit.
  for (const auto& [gpu, wp] : f.power)
    if (wp.first && wp.second && *wp.second > 0)
      sink_.Add(series::GpuSeriesName(gpu, GpuMetric::kPowerLimitW), *ts, *wp.first * 100.0 / *wp.second);
  for (const auto& [core, pct] : f.cores) sink_.Add(series::CpuCoreSeriesName(core), *ts, pct);
  if (f.cpu_pct) {
    // Older clients write the machine's CPU % (psutil.cpu_percent()). Newer ones, the ones that
    // also write per-core figures, write the watched process's CPU over all cores instead
    // (Process.cpu_percent() / cpu_count): that is the process's share, scaled back to % of one
    // core like proc_cpu_pct.
    if (f.cores.empty()) sink_.Add(series::kCpuPctTotal, *ts, *f.cpu_pct);
    else sink_.Add(series::kProcCpuPct, *ts, *f.cpu_pct * double(f.cores.size()));
  }
  if (f.host_available_mib) {
    const double available = *f.host_available_mib * kMiB;
    sink_.Add(series::kMemAvailableBytes, *ts, available);
    // psutil's percent is (total - available) / total.
    if (f.host_mem_pct && *f.host_mem_pct >= 0 && *f.host_mem_pct < 100)
      sink_.Add(series::kMemTotalBytes, *ts, available / (1.0 - *f.host_mem_pct / 100.0));
  }
  if (f.net_sent) AddRate(net_sent_, series::kNetTxBytesPerS, *ts, *f.net_sent);
  if (f.net_recv) AddRate(net_recv_, series::kNetRxBytesPerS, *ts, *f.net_recv);
  return true;
}

void WandbEventsImporter::AddRate(Counter& c, std::string_view name, int64_t ts_ns, double total) {
  // A count that went down (a restarted client) starts over; no rate across it.
  if (c.last && ts_ns > c.last_ts_ns && total >= *c.last)
    sink_.Add(name, ts_ns, (total - *c.last) / (double(ts_ns - c.last_ts_ns) / 1e9));
  c.last = total;
  c.last_ts_ns = ts_ns;
}

void WandbEventsImporter::Finish() {
  if (runtime_only_.value_or(false))
    trace_.diagnostics.Note(ImportIssue::kAssumedTiming,
                            source_ + ": no _timestamp; times are seconds from the run's start (_runtime), "
                                      "the wall-clock time is not known");
}

}  // namespace stepdoctor
