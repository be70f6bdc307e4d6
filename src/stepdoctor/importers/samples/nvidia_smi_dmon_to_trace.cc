#include "stepdoctor/importers/samples/nvidia_smi_dmon_to_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/importers/samples/gpu_row_placer.h"
#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

using series::GpuMetric;

constexpr double kDefaultIntervalS = 1.0;        // dmon's default -d
constexpr int64_t kDayNs = 86400LL * 1000000000;  // a time of day that goes back by more than half of it: the next day
constexpr int64_t kMaxHeaderSearchLines = 400;   // lines read for the first header before giving up

enum class Col { kIgnore, kGpu, kDate, kTime, kMetric };

struct ColumnMeaning {
  std::string_view name;
  Col kind;
  GpuMetric metric = GpuMetric::kUtilPct;
  double scale = 1;  // to the series' unit
};

// dmon's column names we read; every other column is ignored.
constexpr ColumnMeaning kColumns[] = {
    {"gpu", Col::kGpu},
    {"date", Col::kDate},
    {"time", Col::kTime},
    {"sm", Col::kMetric, GpuMetric::kUtilPct},
    {"mem", Col::kMetric, GpuMetric::kMemUtilPct},
    {"fb", Col::kMetric, GpuMetric::kMemUsedBytes, csv::kMiB},
    {"pwr", Col::kMetric, GpuMetric::kPowerW},
    {"gtemp", Col::kMetric, GpuMetric::kTempCelsius},
    {"temp", Col::kMetric, GpuMetric::kTempCelsius},
    {"pclk", Col::kMetric, GpuMetric::kSmClockMhz},
    {"rxpci", Col::kMetric, GpuMetric::kPcieRxBytesPerS, csv::kMiB},
    {"txpci", Col::kMetric, GpuMetric::kPcieTxBytesPerS, csv::kMiB},
};

char Lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; }

// The fields of a dmon line, '#' dropped: split on spaces, tabs and commas (`--format csv`).
std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> out;
  if (!line.empty() && line[0] == '#') line.remove_prefix(1);
  std::string cur;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == ',' || c == '\r') {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

ColumnMeaning Classify(const std::string& name) {
  std::string n;
  for (char c : name) n += Lower(c);
  for (const ColumnMeaning& m : kColumns)
    if (m.name == n) return m;
  return {name, Col::kIgnore};
}

// "20240630" and "00:23:37" -> local time.
TimeParse DateTime(const std::string& date, const std::string& time, int64_t* ns) {
  if (date.size() != 8 || !std::all_of(date.begin(), date.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return TimeParse::kNotATime;
  return csv::ParseTimestamp(date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2) + " " + time, ns);
}

// "nvidia-smi dmon -s pucvmet -d 5": the -d interval in seconds, or 0.
double DelayOf(std::string_view line) {
  if (line.find("dmon") == std::string_view::npos) return 0;
  for (std::string_view flag : {" -d ", " --delay ", " --delay="}) {
    size_t p = line.find(flag);
    if (p == std::string_view::npos) continue;
    std::string_view rest = line.substr(p + flag.size());
    rest = rest.substr(0, rest.find_first_not_of("0123456789"));
    double v, unit;
    if (csv::ParseNumber(rest, &v, &unit) && v > 0 && SecondsToNs(v)) return v;
  }
  return 0;
}

}  // namespace

bool IsDmonHeader(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return false;
  std::vector<std::string> f = Fields(line.substr(i));
  bool gpu = false, metric = false;
  for (const std::string& name : f) {
    ColumnMeaning m = Classify(name);
    gpu |= m.kind == Col::kGpu;
    metric |= m.kind == Col::kMetric;
  }
  return gpu && metric;
}

Status ImportNvidiaSmiDmon(PeekableSource& src, Trace& trace) {
  const std::string& name = src.name();
  LineReader lines(src);
  WorkerId wid = AddLogWorker(trace, name);
  SeriesSink sink(trace, wid);
  // Every header read, and the line it starts at: the placer holds rows back before emitting
  // them, so a row is read with the header above it, not the latest one.
  struct Layout {
    int64_t from_line;
    std::vector<std::string> header;
    std::vector<ColumnMeaning> cols;
  };
  std::vector<Layout> layouts;
  std::vector<std::string> header;
  std::vector<ColumnMeaning> cols;
  int gpu_col = -1, date_col = -1, time_col = -1;
  std::unique_ptr<GpuRowPlacer> placer;
  double interval_s = 0;  // from a dmon command line in the log; 0: not stated
  int64_t rows = 0, bad_rows = 0, bad_values = 0, before_header = 0, bad_times = 0, headers = 0;
  std::map<std::string, int64_t> dashes;  // column -> values written "-"
  bool clock_only = false, other_layout = false, last_row_bad = false;
  int64_t other_layout_rows = 0;
  int64_t day_offset_ns = 0, last_clock_ns = -1;

  auto emit = [&](const GpuRowPlacer::Row& row, int gpu, int64_t ts) {
    auto after = std::upper_bound(layouts.begin(), layouts.end(), row.line,
                                  [](int64_t line, const Layout& l) { return line < l.from_line; });
    if (after == layouts.begin()) return;  // not reached: rows are read only below a header
    const Layout& layout = *(after - 1);
    for (size_t i = 0; i < layout.cols.size() && i < row.fields.size(); ++i) {
      const ColumnMeaning& c = layout.cols[i];
      if (c.kind != Col::kMetric) continue;
      const std::string& cell = row.fields[i];
      if (cell == "-") {
        ++dashes[layout.header[i]];
        continue;
      }
      double v, unit;
      if (!csv::ParseNumber(cell, &v, &unit)) {
        if (bad_values++ == 0)
          trace.diagnostics.Note(ImportIssue::kBadCounterValue,
                                 fmt::format("{}: line {}: not a number in column {}: \"{}\"", name, row.line, layout.header[i],
                                             cell.substr(0, 40)));
        else
          trace.diagnostics.Count(ImportIssue::kBadCounterValue);
        continue;
      }
      sink.Add(series::GpuSeriesName(gpu, c.metric), ts, v * c.scale);
    }
  };

  // A header line: the columns. The first one decides how rows are timed and placed; a later
  // one may name other columns (dmon restarted with other -s options) but not change the time columns.
  auto read_header = [&](std::vector<std::string> f) {
    ++headers;
    if (f == header) return;
    header = std::move(f);
    cols.clear();
    int g = -1, d = -1, t = -1;
    for (size_t i = 0; i < header.size(); ++i) {
      cols.push_back(Classify(header[i]));
      if (cols.back().kind == Col::kGpu && g < 0) g = int(i);
      if (cols.back().kind == Col::kDate && d < 0) d = int(i);
      if (cols.back().kind == Col::kTime && t < 0) t = int(i);
    }
    layouts.push_back({lines.line_number(), header, cols});
    if (placer) {
      // The placer keys rows by the first header's gpu column and timing: a header that moves
      // the one or changes the other heads rows this import cannot place; they are counted.
      other_layout = g != gpu_col || (t >= 0) != (time_col >= 0);
      if (!other_layout) date_col = t >= 0 ? d : -1;
      return;
    }
    gpu_col = g;
    date_col = t >= 0 ? d : -1, time_col = t;
    std::vector<GpuRowPlacer::KeyColumn> keys{{size_t(gpu_col), gpucsv::ColumnKind::kGpuIndex, "gpu"}};
    std::optional<GpuRowPlacer::Polls> polls;
    if (time_col < 0) {
      polls = GpuRowPlacer::Polls{0, interval_s > 0 ? interval_s : kDefaultIntervalS, 0};
      trace.workers[wid.v].sample_times_assumed = true;
      trace.diagnostics.Note(
          ImportIssue::kAssumedTiming,
          interval_s > 0 ? fmt::format("{}: no time column (dmon without -o T): rows taken {:g} s apart per GPU (dmon -d)", name,
                                       interval_s)
                         : fmt::format("{}: no time column (dmon without -o T): rows assumed {:g} s apart per GPU (dmon's "
                                       "default -d 1; their order is known, their interval is not)",
                                       name, kDefaultIntervalS));
    }
    placer = std::make_unique<GpuRowPlacer>(std::move(keys), polls, emit);
  };

  std::string_view line;
  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    if (line[first] == '#') {
      if (IsDmonHeader(line)) read_header(Fields(line.substr(first)));
      continue;  // the units line ("# Idx  W  C ..."), or a comment
    }
    if (!placer) {
      if (double d = DelayOf(line); d > 0) interval_s = d;
      if (++before_header >= kMaxHeaderSearchLines) break;
      continue;
    }
    std::vector<std::string> f = Fields(line.substr(first));
    ++rows;
    if (other_layout) {
      ++other_layout_rows;
      continue;
    }
    last_row_bad = f.size() != cols.size();
    if (last_row_bad) {
      ++bad_rows;
      continue;
    }
    GpuRowPlacer::Row row;
    if (time_col >= 0) {
      TimeParse p = TimeParse::kNotATime;
      if (date_col >= 0) p = DateTime(f[size_t(date_col)], f[size_t(time_col)], &row.ts_ns);
      if (p != TimeParse::kOk && csv::ParseClockTime(f[size_t(time_col)], &row.ts_ns)) {
        // `-o T`: a time of day; past midnight it starts again from 0.
        if (last_clock_ns >= 0 && row.ts_ns + day_offset_ns < last_clock_ns - kDayNs / 2) day_offset_ns += kDayNs;
        row.ts_ns += day_offset_ns;
        last_clock_ns = row.ts_ns;
        clock_only = true;
        p = TimeParse::kOk;
      }
      if (p != TimeParse::kOk) {
        ++bad_times;
        trace.diagnostics.Count(p == TimeParse::kOutOfRange ? ImportIssue::kTimeOutOfRange : ImportIssue::kMissingTimestamp);
        continue;
      }
    }
    row.fields = std::move(f);
    row.line = lines.line_number();
    placer->Add(std::move(row));
  }
  if (!placer)
    return Status(ErrorCode::kUnknownFormat,
                  fmt::format("{}: not an nvidia-smi dmon log: no \"# gpu  pwr  sm ...\" header line in the first {} lines",
                              name, before_header));
  placer->Finish();
  ImportDiagnostics& d = trace.diagnostics;
  // A short last row in a file without a final newline is the cut, not a malformed row.
  bool cut = last_row_bad && lines.ended_without_newline();
  if (cut) {
    --bad_rows;
    d.Note(ImportIssue::kTruncatedInput, fmt::format("{}: the last row is cut: skipped, the rows before it read", name));
  }
  if (!dashes.empty()) {
    int64_t n = 0;
    std::string which;
    for (const auto& [col, k] : dashes) n += k, which += (which.empty() ? "" : ", ") + col;
    d.Note(ImportIssue::kUnsupportedContent,
           fmt::format("{}: {} value(s) written \"-\" (unknown to dmon on this GPU) skipped, in column(s) {}", name, n, which));
  }
  if (bad_rows > 0) {
    d.Note(ImportIssue::kMalformedEvent,
           fmt::format("{}: {} of {} rows have a different number of fields than the header: skipped", name, bad_rows, rows));
    d.Count(ImportIssue::kMalformedEvent, uint64_t(bad_rows - 1));
  }
  if (before_header > 0)
    d.Note(ImportIssue::kUnsupportedContent,
           fmt::format("{}: {} line(s) before the first dmon header skipped", name, before_header));
  if (other_layout_rows > 0)
    d.Note(ImportIssue::kMalformedEvent,
           fmt::format("{}: {} row(s) under a repeated header that moves the gpu column or changes the time columns: "
                       "skipped",
                       name, other_layout_rows));
  if (bad_times > 0)
    d.Note(ImportIssue::kMissingTimestamp, fmt::format("{}: {} row(s) without a readable date and time skipped", name, bad_times));
  if (clock_only)
    d.Note(ImportIssue::kAssumedTiming,
           fmt::format("{}: times of day without a date (dmon -o T): read as seconds since midnight (the log's own "
                       "timeline; it will not line up with a profile)",
                       name));
  if (int64_t n = placer->shared_time_rows(); n > 0)
    d.Note(ImportIssue::kSharedTimestamp,
           fmt::format("{}: {} rows share a time with another row of their GPU: spread evenly up to the next time", name, n));
  NoteLogRead(trace, name, "nvidia-smi dmon");
  if (sink.points() == 0)
    return Status(ErrorCode::kEmptyInput, fmt::format("{}: no GPU samples in the dmon log ({} header line(s), {} row(s))", name,
                                                      headers, rows));
  return Status::Ok();
}

}  // namespace stepdoctor
