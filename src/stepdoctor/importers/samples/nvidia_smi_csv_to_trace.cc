#include "stepdoctor/importers/samples/nvidia_smi_csv_to_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

using csv::kMiB;
using csv::ParseNumber;
using csv::Trim;
using series::GpuMetric;

constexpr int64_t kMaxPreambleLines = 400;     // lines searched for the CSV header (an nvidia-smi table is ~20 per GPU)
constexpr double kAssumedPollIntervalS = 1.0;  // spacing of rows without times when no `-l N` says otherwise
constexpr double kMaxGpuIndex = 1 << 20;       // an index column value past this names no GPU: the row is placed by position

// What a column holds, from its header name.
enum class Col { kIgnore, kTimestamp, kElapsed, kIndex, kGpuId, kName, kMetric };

struct Column {
  Col what = Col::kIgnore;
  GpuMetric metric = GpuMetric::kUtilPct;  // for kMetric
  double scale = 1;                        // to the series' unit (bytes for memory)
};

Column Classify(std::string_view header) {
  std::string h;
  for (char c : Trim(header)) h += char(c >= 'A' && c <= 'Z' ? c + 32 : c);
  // "memory.used [MiB]": the bracket gives the unit.
  std::string unit;
  if (size_t b = h.find('['); b != std::string::npos) {
    size_t e = h.find(']', b);
    unit = h.substr(b + 1, e == std::string::npos ? std::string::npos : e - b - 1);
    h = std::string(Trim(h.substr(0, b)));
  }
  double mem_scale = unit == "gib" ? kMiB * 1024 : unit == "kib" ? 1024 : unit == "mb" ? 1e6 : unit == "gb" ? 1e9 : kMiB;
  if (h.find("_mb") != std::string::npos || h.find("_mib") != std::string::npos) mem_scale = kMiB;
  auto metric = [](GpuMetric m, double scale = 1) { return Column{Col::kMetric, m, scale}; };
  if (h == "timestamp" || h == "time" || h == "unix_time") return {Col::kTimestamp};
  if (h == "elapsed_sec" || h == "elapsed_s" || h == "elapsed" || h == "time_s" || h == "seconds") return {Col::kElapsed};
  if (h == "index" || h == "gpu_index" || h == "gpu") return {Col::kIndex};
  if (h == "uuid" || h == "gpu_uuid" || h == "pci.bus_id" || h == "gpu_bus_id") return {Col::kGpuId};
  if (h == "name" || h == "gpu_name") return {Col::kName};
  if (h == "utilization.gpu" || h == "gpu_util_pct" || h == "gpu_util" || h == "util_pct" || h == "gpu_utilization")
    return metric(GpuMetric::kUtilPct);
  if (h == "utilization.memory" || h == "mem_util_pct") return metric(GpuMetric::kMemUtilPct);
  if (h == "memory.used" || h == "mem_used_mb" || h == "memory_used_mb" || h == "mem_used_mib")
    return metric(GpuMetric::kMemUsedBytes, mem_scale);
  if (h == "memory.total" || h == "mem_total_mb" || h == "memory_total_mb" || h == "mem_total_mib")
    return metric(GpuMetric::kMemTotalBytes, mem_scale);
  if (h == "power.draw" || h == "power_w" || h == "power_draw_w" || h == "power.draw.instant") return metric(GpuMetric::kPowerW);
  if (h == "clocks.sm" || h == "clocks.current.sm" || h == "sm_clock_mhz") return metric(GpuMetric::kSmClockMhz);
  if (h == "temperature.gpu" || h == "temp_c" || h == "temperature_c") return metric(GpuMetric::kTempCelsius);
  return {};
}

// What the lines before the CSV header tell: nvidia-smi's default table (its date and GPU
// rows) and the command line of a logging loop (`nvidia-smi --query-gpu=... -l 10`).
struct Preamble {
  int64_t lines = 0;
  bool table = false, in_processes = false;
  int64_t date_ns = INT64_MIN;
  std::vector<int> table_gpus;  // GPU indices listed in the table
  double loop_s = 0;            // the -l / --loop interval; 0 when not stated

  void Read(std::string_view line) {
    ++lines;
    if (line.find("NVIDIA-SMI") != std::string_view::npos) table = true;
    if (line.find("Processes:") != std::string_view::npos) in_processes = true;
    int64_t ns;
    if (date_ns == INT64_MIN && csv::ParseTableDate(line, &ns)) date_ns = ns;
    if (table && !in_processes) TableGpuRow(line);
    if (line.find("nvidia-smi") != std::string_view::npos) LoopInterval(line);
  }

  // "|   0  NVIDIA A100-SXM4-40GB  On  | ..." names GPU 0 (the fan/temperature line below it
  // starts "| N/A" or "| 30%", never a bare number followed by a name).
  void TableGpuRow(std::string_view line) {
    if (line.empty() || line[0] != '|') return;
    size_t i = line.find_first_not_of(' ', 1);
    if (i == std::string_view::npos || line[i] < '0' || line[i] > '9') return;
    int n = 0;
    for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) n = n * 10 + (line[i] - '0');
    if (i + 1 >= line.size() || line[i] != ' ') return;
    i = line.find_first_not_of(' ', i);
    if (i == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(line[i]))) return;
    if (std::find(table_gpus.begin(), table_gpus.end(), n) == table_gpus.end()) table_gpus.push_back(n);
  }

  // "-l 10", "-l10", "--loop=10", "-lms 500", "--loop-ms=500".
  void LoopInterval(std::string_view line) {
    auto number_after = [&](std::string_view flag, double scale) {
      size_t p = line.find(flag);
      if (p == std::string_view::npos) return;
      std::string_view rest = line.substr(p + flag.size());
      if (!rest.empty() && (rest[0] == '=' || rest[0] == ' ')) rest.remove_prefix(1);
      double v, unit;
      std::string_view num = rest.substr(0, rest.find_first_not_of("0123456789."));
      // An interval too long to hold in nanoseconds is no polling loop: left unstated.
      if (ParseNumber(num, &v, &unit) && v > 0 && SecondsToNs(v * scale)) loop_s = v * scale;
    };
    number_after(" --loop-ms", 1e-3);
    number_after(" -lms", 1e-3);
    if (loop_s == 0) number_after(" --loop", 1);
    if (loop_s == 0) number_after(" -l", 1);
  }
};

// Gives each row its GPU and, for logs without a time column, its poll: a row whose GPU was
// already seen in the current poll starts the next one.
class RowPlacer {
 public:
  RowPlacer(int64_t start_ns, int64_t interval_ns, int gpus_per_poll)
      : start_ns_(start_ns), interval_ns_(interval_ns), per_poll_(std::max(1, gpus_per_poll)) {}

  // The GPU of a row from its index, else its uuid/bus id (numbered in order of appearance),
  // else its position in the poll.
  int Gpu(int index, const std::string* id) {
    if (index >= 0) return index;
    if (id) return ids_.emplace(*id, int(ids_.size())).first->second;
    return int(rows_ % per_poll_);
  }
  // nullopt once the polls run past the time range.
  std::optional<int64_t> PollTime(int gpu) {
    ++rows_;
    if (std::find(seen_.begin(), seen_.end(), gpu) != seen_.end()) seen_.clear(), ++poll_;
    seen_.push_back(gpu);
    auto offset = CheckedMul(poll_, interval_ns_);
    return offset ? AddToTime(start_ns_, *offset) : std::nullopt;
  }

 private:
  int64_t start_ns_, interval_ns_;
  int per_poll_;
  int64_t rows_ = 0, poll_ = 0;
  std::vector<int> seen_;
  std::map<std::string, int> ids_;
};

std::string ExpectedColumns() {
  return "expected a header naming a GPU metric column (utilization.gpu, memory.used, gpu_util_pct, "
         "mem_used_mb, power.draw, ...), optionally timestamp or elapsed_sec, and index or gpu_index";
}

}  // namespace

Status ImportGpuCsv(PeekableSource& src, Trace& trace) {
  LineReader lines(src);
  std::string_view line;
  std::string record, clean;
  std::vector<Column> cols;
  std::vector<std::string> header;
  Preamble pre;
  Worker w;
  w.source_path = src.name();
  w.hostname = src.name();
  WorkerId wid = trace.AddWorker(std::move(w));
  SeriesSink sink(trace, wid);
  std::unique_ptr<RowPlacer> placer;  // rows without times only
  int index_col = -1, id_col = -1;
  int64_t bad_values = 0, bad_rows = 0, rows = 0, nul_bytes = 0, out_of_range_rows = 0;
  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (line.find('\0') != std::string_view::npos) {
      clean.assign(line);
      size_t before = clean.size();
      clean.erase(std::remove(clean.begin(), clean.end(), '\0'), clean.end());
      nul_bytes += int64_t(before - clean.size());
      line = clean;
    }
    // Join physical lines while a quote is open (RFC 4180 fields may hold newlines).
    record.append(line);
    if (std::count(record.begin(), record.end(), '"') % 2 == 1) {
      if (cols.empty() && record.size() > 4096) record.clear();  // a stray quote in the preamble
      else record += '\n';
      continue;
    }
    std::vector<std::string> f = csv::SplitRecord(record);
    if (f.size() == 1 && Trim(f[0]).empty()) {
      record.clear();
      continue;
    }
    if (cols.empty()) {
      std::vector<Column> c;
      bool metric = false;
      for (const auto& h : f) c.push_back(Classify(h)), metric |= c.back().what == Col::kMetric;
      // The command line of the logging loop names the columns too; a header never names the tool.
      if (!metric || record.find("nvidia-smi") != std::string::npos) {
        pre.Read(record);
        record.clear();
        if (pre.lines >= kMaxPreambleLines) break;
        continue;
      }
      cols = std::move(c);
      header = std::move(f);
      record.clear();
      bool have_time = false;
      for (size_t i = 0; i < cols.size(); ++i) {
        have_time |= cols[i].what == Col::kTimestamp || cols[i].what == Col::kElapsed;
        if (cols[i].what == Col::kIndex) index_col = int(i);
        if (cols[i].what == Col::kGpuId) id_col = int(i);
      }
      if (pre.lines > 0)
        trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                               fmt::format("{}: {} line(s) before the CSV header skipped{}", src.name(), pre.lines,
                                           pre.table ? " (nvidia-smi's table)" : ""));
      if (!have_time) {
        const double interval = pre.loop_s > 0 ? pre.loop_s : kAssumedPollIntervalS;
        const int per_poll = index_col < 0 && id_col < 0 ? int(pre.table_gpus.size()) : 1;
        placer = std::make_unique<RowPlacer>(pre.date_ns == INT64_MIN ? 0 : pre.date_ns,
                                             SecondsToNs(interval).value_or(0), per_poll);
        std::string gpus = index_col >= 0 || id_col >= 0 ? ""
                           : per_poll > 1 ? fmt::format("; rows cycle through the table's {} GPUs", per_poll)
                                          : "; no index column, so every row is taken as one GPU";
        trace.diagnostics.Note(ImportIssue::kAssumedTiming,
                               pre.loop_s > 0 ? fmt::format("{}: no time column: rows taken {:g} s apart (nvidia-smi -l){}",
                                                            src.name(), interval, gpus)
                                              : fmt::format("{}: no time column and no -l interval stated: rows assumed "
                                                            "{:g} s apart{}",
                                                            src.name(), interval, gpus));
      }
      continue;
    }
    record.clear();
    if (f == header) continue;  // the header again (a restarted logging loop)
    ++rows;
    if (f.size() < cols.size()) {
      ++bad_rows;
      continue;
    }
    std::optional<int64_t> ts;
    bool time_out_of_range = false;  // a time was written, but past the range (a year 8834)
    int index = -1;
    for (size_t i = 0; i < cols.size(); ++i) {
      double v, scale;
      if (cols[i].what == Col::kTimestamp) {
        int64_t t;
        TimeParse p = csv::ParseTimestamp(f[i], &t);
        if (p == TimeParse::kOk) ts = t;
        time_out_of_range |= p == TimeParse::kOutOfRange;
      } else if (cols[i].what == Col::kElapsed && ParseNumber(f[i], &v, &scale)) {
        if (auto t = SecondsToNs(v)) ts = *t;
        else time_out_of_range = true;
      } else if (cols[i].what == Col::kIndex && ParseNumber(f[i], &v, &scale) && v >= 0 && v <= kMaxGpuIndex) {
        index = int(v);
      }
    }
    std::string id = id_col >= 0 ? std::string(Trim(f[size_t(id_col)])) : "";
    int gpu = placer ? placer->Gpu(index, id_col >= 0 ? &id : nullptr) : std::max(index, 0);
    if (placer) {
      ts = placer->PollTime(gpu);
      time_out_of_range = !ts;
    }
    if (!ts) {
      if (time_out_of_range) ++out_of_range_rows;
      trace.diagnostics.Count(time_out_of_range ? ImportIssue::kTimeOutOfRange : ImportIssue::kMissingTimestamp);
      continue;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].what == Col::kName) {
        sink.DescribeGpu(gpu, Trim(f[i]), 0);
        continue;
      }
      if (cols[i].what != Col::kMetric) continue;
      std::string_view cell = Trim(f[i]);
      if (cell.empty() || cell.front() == '[' || cell == "N/A") continue;  // [N/A], [Not Supported]: absent, not bad
      double v, unit_scale;
      if (!ParseNumber(cell, &v, &unit_scale)) {
        if (bad_values++ == 0)
          trace.diagnostics.Note(ImportIssue::kBadCounterValue,
                                 src.name() + ": line " + std::to_string(lines.line_number()) +
                                     ": not a number in column " + std::to_string(i + 1) + ": \"" +
                                     std::string(cell.substr(0, 40)) + "\"");
        else
          trace.diagnostics.Count(ImportIssue::kBadCounterValue);
        continue;
      }
      double scale = unit_scale > 0 ? unit_scale : cols[i].scale;
      sink.Add(series::GpuSeriesName(gpu, cols[i].metric), *ts, v * scale);
    }
  }
  if (cols.empty())
    return Status(ErrorCode::kUnknownFormat,
                  fmt::format("{}: not a GPU log: no CSV header with a GPU metric column in the first {} lines; {}",
                              src.name(), pre.lines, ExpectedColumns()));
  if (nul_bytes > 0)
    trace.diagnostics.Note(ImportIssue::kPadding, fmt::format("{}: {} NUL byte(s) skipped", src.name(), nul_bytes));
  if (!record.empty()) trace.diagnostics.Count(ImportIssue::kTruncatedInput);  // an unclosed quote at the end
  if (bad_rows > 0)
    trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                           src.name() + ": " + std::to_string(bad_rows) + " of " + std::to_string(rows) +
                               " rows have fewer fields than the header"),
        trace.diagnostics.Count(ImportIssue::kMalformedEvent, uint64_t(bad_rows - 1));
  // The memory total is a property of the GPU: record it on the device too.
  for (const CounterSeries& c : trace.counters) {
    int g = -1;
    if (c.worker == wid && series::IsGpuSeries(c.name, GpuMetric::kMemTotalBytes, &g) && !c.value.empty())
      trace.devices[c.device.v].memory_bytes = RoundToInt64(c.value.back()).value_or(0);  // SeriesSink kept it in int64
  }
  trace.sources.push_back(src.name());
  if (trace.format.empty()) trace.format = "nvidia-smi csv";
  else if (trace.format.find("nvidia-smi csv") == std::string::npos) trace.format += " + nvidia-smi csv";
  if (sink.points() == 0)
    return Status(ErrorCode::kEmptyInput,
                  out_of_range_rows == 0
                      ? src.name() + ": no GPU samples in the CSV"
                      : fmt::format("{}: no GPU samples in the CSV: {} row(s) skipped, their time outside the "
                                    "representable range (about 1823-2116)",
                                    src.name(), out_of_range_rows));
  return Status::Ok();
}

}  // namespace stepdoctor
