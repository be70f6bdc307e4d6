#include "stepdoctor/importers/samples/nvidia_smi_csv_to_trace.h"

#include "stepdoctor/core/checked_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/importers/samples/date_order_judge.h"
#include "stepdoctor/importers/samples/gpu_csv_columns.h"
#include "stepdoctor/importers/samples/gpu_csv_headerless.h"
#include "stepdoctor/importers/samples/gpu_row_placer.h"
#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/nvidia_smi_table_rows.h"
#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {
// A memory-util column within this many points of used / total on every row is that share.
constexpr double kUsedShareTolerancePct = 0.1;

// No GPU draws this much (the largest, B200/GB200 modules, are rated about 1,000-1,200 W): a
// power column whose median passes it holds milliwatts under a W label (Jetson's INA sensors and
// the tools that log them, such as codecarbon's, report mW).
constexpr double kMaxGpuPowerW = 2000.0;

// Power series of `worker` read as mW where their median passes kMaxGpuPowerW: divided by 1000,
// and said in one note per file.
void MilliwattsAsWatts(Trace& trace, WorkerId worker, const std::string& file) {
  for (auto& c : trace.counters) {
    int g = -1;
    if (c.worker != worker || c.value.empty() || !series::IsGpuSeries(c.name, series::GpuMetric::kPowerW, &g)) continue;
    std::vector<double> v = c.value;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    if (v[v.size() / 2] <= kMaxGpuPowerW) continue;
    const auto [lo, hi] = std::minmax_element(c.value.begin(), c.value.end());
    trace.diagnostics.Note(ImportIssue::kAssumedUnit,
                           fmt::format("{}: GPU {} power of {:.0f}-{:.0f} W is beyond any GPU's draw ({:.0f} W): read "
                                       "as milliwatts",
                                       file, g, *lo, *hi, kMaxGpuPowerW));
    for (double& x : c.value) x /= 1000.0;
  }
}

using csv::kMiB;
using csv::ParseNumber;
using csv::Trim;
using gpucsv::ColumnKind;
using series::GpuMetric;

constexpr int64_t kMaxPreambleLines = 400;     // lines searched for the CSV header (an nvidia-smi table is ~20 per GPU)
constexpr double kAssumedPollIntervalS = 1.0;  // spacing of rows without times when no `-l N` says otherwise
constexpr double kMaxGpuMemoryMiB = 16.0 * 1024 * 1024;  // unitless memory above 16 TiB as MiB can only be bytes
constexpr size_t kMaxRowsBeforeDateOrder = 100000;  // rows held while their dates' order is open
constexpr size_t kHeaderlessProbeRows = 200;  // rows of a log without a header read to tell its columns

// What the lines before the CSV header tell: nvidia-smi's default table (its date and GPU
// rows) and the command line of a logging loop (`nvidia-smi --query-gpu=... -l 10`).
struct Preamble {
  int64_t lines = 0;
  bool table = false, in_processes = false;
  int64_t date_ns = INT64_MIN;
  std::vector<int> table_gpus;  // GPU indices listed in the table
  double loop_s = 0;            // the -l / --loop interval; 0 when not stated
  // The first snapshot's figures, per GPU: one more reading of the same GPUs, just before the
  // rows (a job script prints the table, then starts its query loop).
  struct TableReading {
    int gpu = 0;
    std::string util, mem_used, mem_total;
  };
  std::vector<TableReading> readings;
  bool expect_figures = false;  // the line after a GPU's first line holds its figures

  void Read(std::string_view line) {
    ++lines;
    if (line.find("NVIDIA-SMI") != std::string_view::npos) table = true;
    if (smitable::IsProcessesTitle(line)) in_processes = true;
    int64_t ns;
    if (date_ns == INT64_MIN && csv::ParseTableDate(line, &ns)) date_ns = ns;
    if (table && !in_processes) TableGpuRow(line);
    if (line.find("nvidia-smi") != std::string_view::npos) LoopInterval(line);
  }

  // "|   0  NVIDIA A100-SXM4-40GB  On  | ..." names GPU 0 (nvidia_smi_table_rows.h).
  void TableGpuRow(std::string_view line) {
    if (expect_figures) {
      expect_figures = false;
      smitable::GpuFigures f;
      if (smitable::ParseGpuFigures(line, &f))
        readings.push_back({table_gpus.back(), std::string(f.util), std::string(f.mem_used), std::string(f.mem_total)});
      return;
    }
    smitable::GpuHead head;
    if (!smitable::ParseGpuHead(line, &head)) return;
    if (std::find(table_gpus.begin(), table_gpus.end(), head.index) != table_gpus.end()) return;  // a later snapshot
    table_gpus.push_back(head.index);
    expect_figures = true;
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
      if (ParseNumber(num, &v, &unit) && v > 0 && SecondsToNs(v * scale)) loop_s = v * scale;  // in range or unstated
    };
    number_after(" --loop-ms", 1e-3);
    number_after(" -lms", 1e-3);
    if (loop_s == 0) number_after(" --loop", 1);
    if (loop_s == 0) number_after(" -l", 1);
  }
};

// The columns, once the header is read.
struct Columns {
  std::vector<gpucsv::ColumnMeaning> col;
  std::vector<std::string> header;
  int time = -1;  // the timestamp or elapsed column; -1: none
  int date = -1;  // a Date column beside a Time one
  bool has_total = false;  // a memory total column (else used + free, where both are logged)
  std::vector<GpuRowPlacer::KeyColumn> keys;
};

// `names`: what each column is called in the notes (the header, or what a headerless log's
// column was taken as).
Columns ReadColumns(std::vector<gpucsv::ColumnMeaning> meanings, const std::vector<std::string>& names) {
  Columns c;
  for (size_t i = 0; i < meanings.size(); ++i) {
    const gpucsv::ColumnMeaning& m = meanings[i];
    if ((m.kind == ColumnKind::kTimestamp || m.kind == ColumnKind::kElapsed) && c.time < 0) c.time = int(i);
    if (m.kind == ColumnKind::kDate && c.date < 0) c.date = int(i);
    if (m.kind == ColumnKind::kMetric && m.metric == GpuMetric::kMemTotalBytes) c.has_total = true;
    if (m.kind == ColumnKind::kGpuIndex || m.kind == ColumnKind::kGpuUuid || m.kind == ColumnKind::kGpuBusId ||
        m.kind == ColumnKind::kGpuName)
      c.keys.push_back({i, m.kind, std::string(Trim(names[i]))});
    c.col.push_back(m);
  }
  if (c.time < 0) c.date = -1;  // a date alone does not order samples within a day
  return c;
}

Columns ReadHeader(std::vector<std::string> header) {
  std::vector<gpucsv::ColumnMeaning> meanings;
  for (const std::string& h : header) meanings.push_back(gpucsv::ClassifyHeader(h));
  Columns c = ReadColumns(std::move(meanings), header);
  c.header = std::move(header);
  return c;
}

// The time of a row: a number (epoch or elapsed seconds, in the column's unit), a date and
// time (joined with a Date column where there is one), or a bare time of day.
// kOutOfRange for a number or date past the time range (core/checked_time.h).
// The cell that holds a row's date: the Date column beside a Time one, else the time column.
std::string_view DateCell(const Columns& c, const std::vector<std::string>& f) {
  return Trim(f[size_t(c.date >= 0 ? c.date : c.time)]);
}

TimeParse RowTime(const Columns& c, const std::vector<std::string>& f, csv::DateOrder order, int64_t* ns,
                  bool* clock_only) {
  std::string_view cell = Trim(f[size_t(c.time)]);
  double v, unit;
  if (ParseNumber(cell, &v, &unit)) {
    auto t = SecondsToNs(v * c.col[size_t(c.time)].scale);
    if (!t) return TimeParse::kOutOfRange;
    *ns = *t;
    return TimeParse::kOk;
  }
  TimeParse p = TimeParse::kNotATime;
  if (c.date >= 0) p = csv::ParseTimestamp(std::string(Trim(f[size_t(c.date)])) + " " + std::string(cell), ns, order);
  if (p != TimeParse::kOk) {
    TimeParse alone = csv::ParseTimestamp(cell, ns, order);
    if (alone == TimeParse::kOk || p == TimeParse::kNotATime) p = alone;
  }
  if (p != TimeParse::kNotATime) return p;
  *clock_only = csv::ParseClockTime(cell, ns);
  return *clock_only ? TimeParse::kOk : TimeParse::kNotATime;
}

// Bytes per unit of the memory columns whose header and values state no unit: MiB (nvidia-smi's
// unit with `nounits`, and what scripts log), unless a value in the row is too large for any GPU
// in MiB. 0 while the row holds no positive unitless memory value to judge by.
double UnitlessMemoryScale(const Columns& c, const std::vector<std::string>& f) {
  double largest = 0;
  for (size_t i = 0; i < c.col.size(); ++i) {
    const gpucsv::ColumnMeaning& m = c.col[i];
    if (m.kind != ColumnKind::kMetric || m.scale != 0) continue;
    double v, unit;
    if (ParseNumber(f[i], &v, &unit) && unit == 0) largest = std::max(largest, v);
  }
  if (largest <= 0) return 0;
  return largest > kMaxGpuMemoryMiB ? 1 : kMiB;
}

// One GPU's reading from nvidia-smi's table ("0%", "1070MiB", "N/A"): what parses is kept.
void TableReadingToSeries(int gpu, std::string_view util, std::string_view used, std::string_view total, int64_t ts,
                          SeriesSink& sink) {
  auto add = [&](GpuMetric m, std::string_view cell, bool memory) {
    double v, unit;
    if (!ParseNumber(Trim(cell), &v, &unit)) return;
    sink.Add(series::GpuSeriesName(gpu, m), ts, memory ? v * (unit > 0 ? unit : kMiB) : v);
  };
  add(GpuMetric::kUtilPct, util, false);
  add(GpuMetric::kMemUsedBytes, used, true);
  add(GpuMetric::kMemTotalBytes, total, true);
}

// nvidia-smi's utilization.memory is the share of time memory was read or written; home-made
// loggers often write "memory_util" for the share of memory used. Where a GPU's memory-util
// column equals used / total on every row (within rounding), it is that share.
void MemoryUtilThatIsUsedShare(Trace& trace, WorkerId wid) {
  for (CounterSeries& util : trace.counters) {
    int g = -1;
    if (util.worker != wid || !series::IsGpuSeries(util.name, GpuMetric::kMemUtilPct, &g) || util.value.empty()) continue;
    const CounterSeries *used = nullptr, *total = nullptr;
    for (const CounterSeries& c : trace.counters) {
      if (c.worker != wid) continue;
      int h = -1;
      if (series::IsGpuSeries(c.name, GpuMetric::kMemUsedBytes, &h) && h == g) used = &c;
      if (series::IsGpuSeries(c.name, GpuMetric::kMemTotalBytes, &h) && h == g) total = &c;
    }
    if (!used || !total || used->value.size() != util.value.size() || total->value.size() != util.value.size()) continue;
    bool share = true, any_used = false;
    for (size_t i = 0; i < util.value.size() && share; ++i) {
      if (total->value[i] <= 0) share = false;
      else share = std::abs(util.value[i] - 100.0 * used->value[i] / total->value[i]) <= kUsedShareTolerancePct;
      any_used |= used->value[i] > 0;
    }
    if (share && any_used) util.name = series::GpuSeriesName(g, GpuMetric::kMemUsedPct);
  }
}

}  // namespace

Status ImportGpuCsv(PeekableSource& src, Trace& trace) {
  LineReader lines(src);
  std::string_view line;
  std::string record, clean;
  Columns cols;
  Preamble pre;
  int64_t header_line = 0;  // the CSV header's line number
  WorkerId wid = AddLogWorker(trace, src.name());
  SeriesSink sink(trace, wid);
  std::unique_ptr<GpuRowPlacer> placer;
  double unitless_mem_scale = 0;  // bytes per unit of memory columns without a unit, once decided
  int64_t bad_values = 0, bad_rows = 0, rows = 0, nul_bytes = 0, clock_only_rows = 0, out_of_range_rows = 0;

  // One placed row: its GPU's name and samples.
  auto emit = [&](const GpuRowPlacer::Row& row, int gpu, int64_t ts) {
    const std::vector<std::string>& f = row.fields;
    if (unitless_mem_scale == 0) unitless_mem_scale = UnitlessMemoryScale(cols, f);
    double used = -1, free = -1;  // bytes, for a total the log does not state
    for (size_t i = 0; i < cols.col.size(); ++i) {
      const gpucsv::ColumnMeaning& c = cols.col[i];
      if (c.kind == ColumnKind::kGpuName) sink.DescribeGpu(gpu, Trim(f[i]), 0);
      if (c.kind != ColumnKind::kMetric && c.kind != ColumnKind::kMemFree) continue;
      std::string_view cell = Trim(f[i]);
      if (cell.empty() || cell.front() == '[' || cell == "N/A") continue;  // [N/A], [Not Supported]: absent, not bad
      double v, unit_scale;
      if (!ParseNumber(cell, &v, &unit_scale)) {
        if (bad_values++ == 0)
          trace.diagnostics.Note(ImportIssue::kBadCounterValue,
                                 fmt::format("{}: line {}: not a number in column {}: \"{}\"", src.name(), row.line,
                                             i + 1, cell.substr(0, 40)));
        else
          trace.diagnostics.Count(ImportIssue::kBadCounterValue);
        continue;
      }
      const bool free_col = c.kind == ColumnKind::kMemFree;
      bool memory = free_col || c.metric == GpuMetric::kMemUsedBytes || c.metric == GpuMetric::kMemTotalBytes;
      double scale = unit_scale > 0 ? unit_scale : memory && c.scale == 0 ? unitless_mem_scale : c.scale;
      if (free_col) {
        free = v * scale;
        continue;
      }
      if (c.metric == GpuMetric::kMemUsedBytes) used = v * scale;
      sink.Add(series::GpuSeriesName(gpu, c.metric), ts, v * scale);
    }
    if (!cols.has_total && used >= 0 && free >= 0)
      sink.Add(series::GpuSeriesName(gpu, GpuMetric::kMemTotalBytes), ts, used + free);
  };

  csv::DateOrderJudge dates;
  std::vector<GpuRowPlacer::Row> held;
  bool year_last_dates = false;  // some row's date was judged
  auto place = [&](GpuRowPlacer::Row row) {
    if (cols.time >= 0) {
      bool clock_only = false;
      const TimeParse p = RowTime(cols, row.fields, dates.order(), &row.ts_ns, &clock_only);
      if (p != TimeParse::kOk) {
        // A time was written, but past the range (a year 8834): counted apart from a missing one.
        if (p == TimeParse::kOutOfRange) ++out_of_range_rows;
        trace.diagnostics.Count(p == TimeParse::kOutOfRange ? ImportIssue::kTimeOutOfRange : ImportIssue::kMissingTimestamp);
        return;
      }
      clock_only_rows += clock_only;
    }
    placer->Add(std::move(row));
  };
  auto place_held = [&] {
    for (auto& r : held) place(std::move(r));
    held.clear();
  };

  // Once the columns are known: what the lines before them and a missing time column mean.
  auto start_rows = [&] {
    std::optional<GpuRowPlacer::Polls> polls;
    // Rows the log does not time follow the table above them: its snapshot is their first
    // reading (timed rows may come from another clock than the table's date, so it stays out).
    const bool table_sample = cols.time < 0 && !pre.readings.empty();
    if (pre.lines > 0)
      trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                             fmt::format("{}: {} line(s) before the CSV header {}{}", src.name(), header_line - 1,
                                         table_sample ? "read as one snapshot" : "skipped",
                                         pre.table ? " (nvidia-smi's table)" : ""));
    if (cols.time < 0) {
      polls = GpuRowPlacer::Polls{pre.date_ns == INT64_MIN ? 0 : pre.date_ns,
                                  pre.loop_s > 0 ? pre.loop_s : kAssumedPollIntervalS, int(pre.table_gpus.size())};
      if (table_sample) {
        for (const auto& t : pre.readings) TableReadingToSeries(t.gpu, t.util, t.mem_used, t.mem_total, polls->start_ns, sink);
        if (auto next = CheckedAdd(polls->start_ns, SecondsToNs(polls->interval_s).value_or(0))) polls->start_ns = *next;
      }
      trace.workers[wid.v].sample_times_assumed = true;
      bool numbered = std::any_of(cols.keys.begin(), cols.keys.end(),
                                  [](const auto& k) { return k.kind != ColumnKind::kGpuName; });
      std::string gpus = numbered                ? ""
                         : pre.table_gpus.size() > 1 ? fmt::format("; rows cycle through the table's {} GPUs", pre.table_gpus.size())
                                                 : "; no index column, so every row is taken as one GPU";
      trace.diagnostics.Note(
          ImportIssue::kAssumedTiming,
          pre.loop_s > 0
              ? fmt::format("{}: no time column: rows taken {:g} s apart (nvidia-smi -l){}", src.name(), polls->interval_s, gpus)
              : fmt::format("{}: no time column and no -l interval stated: rows assumed {:g} s apart (their order is "
                            "known, their interval is not){}",
                            src.name(), polls->interval_s, gpus));
    }
    placer = std::make_unique<GpuRowPlacer>(cols.keys, polls, emit);
  };
  // One data row, in file order.
  int64_t last_row_line = -1;
  bool last_row_cut = false;    // its last field empty, or fields missing: what a cut mid-row leaves
  bool last_row_short = false;  // fields missing: the row is dropped
  auto take_row = [&](std::vector<std::string> f, int64_t line_no) {
    ++rows;
    last_row_line = line_no;
    last_row_short = f.size() < cols.col.size();
    last_row_cut = last_row_short || (!f.empty() && Trim(f.back()).empty());
    if (f.size() < cols.col.size()) {
      ++bad_rows;
      return;
    }
    GpuRowPlacer::Row row;
    row.fields = std::move(f);
    row.line = line_no;
    // Rows whose year-last dates have not yet shown which field is the day wait for them.
    int first, second;
    if (cols.time >= 0 && !dates.decided() && csv::YearLastDate(DateCell(cols, row.fields), &first, &second)) {
      dates.See(first, second);
      year_last_dates = true;
      held.push_back(std::move(row));
      if (!dates.decided() && held.size() < kMaxRowsBeforeDateOrder) return;
      dates.Settle();
      place_held();
      return;
    }
    if (!held.empty()) dates.Settle(), place_held();  // rows go to the placer in file order
    place(std::move(row));
  };

  // A log whose first line is already a row of values (`--format=csv,noheader`): its columns
  // are told from its first rows (gpu_csv_headerless.h), then those rows are read as any.
  bool headerless = false;
  std::vector<std::pair<std::vector<std::string>, int64_t>> headerless_rows;
  auto read_headerless = [&]() -> Status {
    std::vector<std::vector<std::string>> probe;
    for (const auto& r : headerless_rows) probe.push_back(r.first);
    gpucsv::HeaderlessColumns h = gpucsv::InferHeaderlessColumns(probe);
    if (!h.error.empty())
      return Status(ErrorCode::kUnknownFormat,
                    fmt::format("{}: the CSV has no header row and its columns cannot be told from the values ({}); "
                                "add the header line of the --query-gpu fields (e.g. `timestamp, utilization.gpu [%], "
                                "memory.used [MiB]`)",
                                src.name(), h.error));
    cols = ReadColumns(std::move(h.col), h.name);
    trace.diagnostics.Note(ImportIssue::kAssumedUnit, fmt::format("{}: {}", src.name(), h.note));
    start_rows();
    for (auto& [f, line_no] : headerless_rows) take_row(std::move(f), line_no);
    headerless_rows.clear();
    return Status::Ok();
  };

  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    line = WithoutNuls(line, &clean, &nul_bytes);
    // Join physical lines while a quote is open (RFC 4180 fields may hold newlines).
    record.append(line);
    if (std::count(record.begin(), record.end(), '"') % 2 == 1) {
      if (cols.col.empty() && record.size() > 4096) record.clear();  // a stray quote in the preamble
      else record += '\n';
      continue;
    }
    std::vector<std::string> f = csv::SplitRecord(record);
    if (f.size() == 1 && Trim(f[0]).empty()) {
      record.clear();
      continue;
    }
    if (cols.col.empty() && (headerless || (pre.lines == 0 && gpucsv::LooksLikeHeaderlessRow(f)))) {
      headerless = true;
      record.clear();
      headerless_rows.emplace_back(std::move(f), lines.line_number());
      if (headerless_rows.size() >= kHeaderlessProbeRows)
        if (Status st = read_headerless(); !st.ok()) return st;
      continue;
    }
    if (cols.col.empty()) {
      // The command line of the logging loop names the columns too; a header never names the tool.
      if (!gpucsv::NamesAGpuMetric(record) || record.find("nvidia-smi") != std::string::npos) {
        pre.Read(record);
        record.clear();
        if (pre.lines >= kMaxPreambleLines) break;
        continue;
      }
      cols = ReadHeader(std::move(f));
      record.clear();
      header_line = lines.line_number();
      start_rows();
      continue;
    }
    record.clear();
    if (f == cols.header) continue;  // the header again (a restarted logging loop)
    take_row(std::move(f), lines.line_number());
  }
  if (headerless && cols.col.empty())
    if (Status st = read_headerless(); !st.ok()) return st;
  dates.Settle();
  place_held();
  if (cols.col.empty())
    return Status(ErrorCode::kUnknownFormat,
                  fmt::format("{}: not a GPU log: no CSV header with a GPU metric column in the first {} lines; {}",
                              src.name(), pre.lines, gpucsv::ExpectedColumnsText()));
  placer->Finish();
  MilliwattsAsWatts(trace, wid, src.name());
  if (!placer->attribution_note().empty())
    trace.diagnostics.Note(ImportIssue::kGpuAttribution, fmt::format("{}: {}", src.name(), placer->attribution_note()));
  // Every row at one time: the log spans less than its clock's resolution, so its order is
  // real and its spacing the importer's.
  if (placer->times() == 1 && placer->shared_time_rows() > 1)
    trace.workers[wid.v].sample_times_assumed = trace.workers[wid.v].sample_times_one_stamp = true;
  if (int64_t n = placer->shared_time_rows(); n > 0) {
    trace.diagnostics.Note(ImportIssue::kSharedTimestamp,
                           fmt::format("{}: {} rows share a time with another row of their GPU, at {} time(s): the "
                                       "log's clock is coarser than its polling; spread evenly up to the next time",
                                       src.name(), n, placer->shared_times()));
    trace.diagnostics.Count(ImportIssue::kSharedTimestamp, uint64_t(n - 1));
  }
  if (dates.by_data())
    trace.diagnostics.Note(ImportIssue::kAssumedTiming,
                           fmt::format("{}: dates read {} first: {}", src.name(),
                                       dates.order() == csv::DateOrder::kMonthFirst ? "month" : "day", dates.reason()));
  else if (year_last_dates)
    trace.diagnostics.Note(ImportIssue::kAssumedTiming,
                           fmt::format("{}: no date tells its day from its month (both 12 or under, one day or no "
                                       "day-to-day step): read as written (day first with '-' or '.', month first "
                                       "with '/')",
                                       src.name()));
  if (clock_only_rows > 0)
    trace.diagnostics.Note(ImportIssue::kAssumedTiming,
                           fmt::format("{}: times of day without a date: read as seconds since midnight (the "
                                       "log's own timeline; it will not line up with a profile)",
                                       src.name()));
  if (unitless_mem_scale == 1)
    trace.diagnostics.Note(ImportIssue::kAssumedUnit,
                           fmt::format("{}: memory columns without a unit hold values beyond any GPU's memory in "
                                       "MiB: read as bytes",
                                       src.name()));
  if (nul_bytes > 0)
    trace.diagnostics.Note(ImportIssue::kPadding, fmt::format("{}: {} NUL byte(s) skipped", src.name(), nul_bytes));
  if (!record.empty()) trace.diagnostics.Count(ImportIssue::kTruncatedInput);  // an unclosed quote at the end
  // A last row with no line end and an empty or missing last field: the file was cut mid-row.
  // What the row holds is read; the fields it lost are named here, not dropped silently.
  else if (lines.ended_without_newline() && last_row_cut && last_row_line == lines.line_number())
    trace.diagnostics.Note(ImportIssue::kTruncatedInput,
                           fmt::format("{}: line {}: the file ends mid-row (no line end, {}){}", src.name(),
                                       last_row_line, last_row_short ? "fields missing" : "its last field empty",
                                       last_row_short ? ": the row is not read" : ": the values it holds are read"));
  if (bad_rows > 0)
    trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                           src.name() + ": " + std::to_string(bad_rows) + " of " + std::to_string(rows) +
                               " rows have fewer fields than the header"),
        trace.diagnostics.Count(ImportIssue::kMalformedEvent, uint64_t(bad_rows - 1));
  MemoryUtilThatIsUsedShare(trace, wid);
  // The memory total is a property of the GPU: record it on the device too.
  for (const CounterSeries& c : trace.counters) {
    int g = -1;
    if (c.worker == wid && series::IsGpuSeries(c.name, GpuMetric::kMemTotalBytes, &g) && !c.value.empty())
      trace.devices[c.device.v].memory_bytes = int64_t(c.value.back());
  }
  NoteLogRead(trace, src.name(), "nvidia-smi csv");
  if (sink.points() == 0)
    return Status(ErrorCode::kEmptyInput,
                  out_of_range_rows == 0
                      ? src.name() + ": no GPU samples in the CSV"
                      : fmt::format("{}: no GPU samples in the CSV: {} row(s) skipped, their time outside the "
                                    "representable range",
                                    src.name(), out_of_range_rows));
  return Status::Ok();
}

}  // namespace stepdoctor
