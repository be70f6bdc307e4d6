#include "stepdoctor/importers/samples/nvidia_smi_table_to_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/nvidia_smi_table_rows.h"
#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

using series::GpuMetric;

constexpr double kAssumedSnapshotIntervalS = 1.0;  // spacing of undated snapshots, as for CSV rows without times
constexpr size_t kTableDateChars = 24;              // "Sun Jun 30 00:23:37 2024": the end of `watch`'s header

// One GPU of a snapshot: its figures as printed (copied: the line is gone by the flush).
struct GpuRow {
  int index = 0;
  std::string name;
  bool has_figures = false;
  std::string temp, power_draw, power_cap, mem_used, mem_total, util;
  int64_t line = 0;
};

struct Snapshot {
  bool open = false;                  // its banner was read
  int64_t date_ns = INT64_MIN;        // INT64_MIN: no date line
  std::vector<GpuRow> gpus;
  bool expect_figures = false;        // the last GPU line awaits its figures line
  bool in_processes = false;
  int process_rows = 0;
  std::map<int, double> process_bytes;  // GPU -> memory its listed processes hold
};

// `watch nvidia-smi`'s header: "Every 2.0s: nvidia-smi    host: Sun Jun 30 00:23:37 2024".
bool WatchHeader(std::string_view line, double* interval_s, int64_t* date_ns) {
  line = csv::Trim(line);
  if (line.substr(0, 6) != "Every ") return false;
  size_t s = line.find("s: ", 6);
  if (s == std::string_view::npos) return false;
  double v, unit;
  if (csv::ParseNumber(line.substr(6, s - 6), &v, &unit) && v > 0 && SecondsToNs(v)) *interval_s = v;
  *date_ns = INT64_MIN;
  if (line.size() >= kTableDateChars) {
    int64_t ns;
    if (csv::ParseTableDate(line.substr(line.size() - kTableDateChars), &ns)) *date_ns = ns;
  }
  return true;
}

class TableImport {
 public:
  TableImport(PeekableSource& src, Trace& trace)
      : src_(src), trace_(trace), wid_(AddLogWorker(trace, src.name())), sink_(trace, wid_) {}

  Status Run();

 private:
  void Read(std::string_view line, int64_t line_no);
  void Flush(bool at_end);
  // One printed value into a series; "N/A" and empty are absent. Scale: to the series' unit
  // where the value states none.
  void Add(const GpuRow& g, GpuMetric m, const std::string& text, int64_t ts, double* value_out = nullptr);

  PeekableSource& src_;
  Trace& trace_;
  WorkerId wid_;
  SeriesSink sink_;
  Snapshot snap_;
  int64_t pending_date_ = INT64_MIN;  // a date line read, its banner not yet
  double interval_s_ = kAssumedSnapshotIntervalS;
  bool interval_stated_ = false;
  int64_t next_assumed_ns_ = 0;       // where an undated snapshot goes: one interval after the last
  int64_t snapshots_ = 0, dated_ = 0, undated_ = 0, empty_snapshots_ = 0, gpu_rows_ = 0;
  int64_t bad_values_ = 0, no_figures_ = 0, outside_lines_ = 0, process_na_ = 0, nul_bytes_ = 0;
  int64_t cut_gpus_ = 0;              // GPU lines of the last snapshot without figures in a cut file
  int64_t cut_snapshots_ = 0;         // 1 when the file ends after a banner, before any GPU line
  bool no_devices_ = false;           // nvidia-smi said "No devices were found"
  bool last_line_lacked_figures_ = false;  // the line just read was a GPU's unreadable figures line
};

void TableImport::Read(std::string_view line, int64_t line_no) {
  last_line_lacked_figures_ = false;
  int64_t date;
  double watch_interval = 0;
  if (WatchHeader(line, &watch_interval, &date)) {
    if (watch_interval > 0) interval_s_ = watch_interval, interval_stated_ = true;
    if (snap_.open) Flush(false);
    pending_date_ = date;
    return;
  }
  if (csv::ParseTableDate(line, &date)) {
    if (snap_.open) Flush(false);
    pending_date_ = date;
    return;
  }
  if (smitable::IsBanner(line)) {
    if (snap_.open) Flush(false);  // a snapshot without a date line of its own
    snap_.open = true;
    snap_.date_ns = pending_date_;
    pending_date_ = INT64_MIN;
    return;
  }
  if (line.find("No devices were found") != std::string_view::npos) no_devices_ = true;
  if (!snap_.open) {
    std::string_view t = csv::Trim(line);  // a box's border above its banner is the table's own
    if (!t.empty() && t[0] != '+' && t[0] != '|' && !no_devices_) ++outside_lines_;
    return;
  }
  if (smitable::IsProcessesTitle(line)) {
    snap_.in_processes = true;
    return;
  }
  if (snap_.in_processes) {
    smitable::ProcessRow p;
    if (!smitable::ParseProcessRow(line, &p)) return;
    ++snap_.process_rows;
    double v, unit;
    if (p.memory == "N/A" || !csv::ParseNumber(p.memory, &v, &unit)) {
      ++process_na_;
      return;
    }
    snap_.process_bytes[p.gpu] += v * (unit > 0 ? unit : csv::kMiB);
    return;
  }
  smitable::GpuHead head;
  if (smitable::ParseGpuHead(line, &head)) {
    if (snap_.expect_figures) ++no_figures_;
    GpuRow g;
    g.index = head.index;
    g.name = std::string(head.name);
    g.line = line_no;
    snap_.gpus.push_back(std::move(g));
    snap_.expect_figures = true;
    return;
  }
  if (snap_.expect_figures) {
    snap_.expect_figures = false;
    smitable::GpuFigures f;
    if (!smitable::ParseGpuFigures(line, &f)) {
      ++no_figures_;
      last_line_lacked_figures_ = true;
      return;
    }
    GpuRow& g = snap_.gpus.back();
    g.has_figures = true;
    g.temp = f.temp, g.power_draw = f.power_draw, g.power_cap = f.power_cap;
    g.mem_used = f.mem_used, g.mem_total = f.mem_total, g.util = f.util;
  }
  // Anything else inside the box (borders, column titles, MIG M., Disabled) holds no figure.
}

void TableImport::Add(const GpuRow& g, GpuMetric m, const std::string& text, int64_t ts, double* value_out) {
  std::string_view cell = csv::Trim(text);
  if (cell.empty() || cell == "N/A" || cell.front() == '[') return;  // [N/A], [Not Supported]: absent, not bad
  double v, unit;
  if (!csv::ParseNumber(cell, &v, &unit)) {
    if (bad_values_++ == 0)
      trace_.diagnostics.Note(ImportIssue::kBadCounterValue,
                              fmt::format("{}: line {}: not a number in GPU {}'s figures: \"{}\"", src_.name(), g.line + 1,
                                          g.index, cell.substr(0, 40)));
    else
      trace_.diagnostics.Count(ImportIssue::kBadCounterValue);
    return;
  }
  bool memory = m == GpuMetric::kMemUsedBytes || m == GpuMetric::kMemTotalBytes;
  double value = memory ? v * (unit > 0 ? unit : csv::kMiB) : v;  // the table prints MiB
  if (sink_.Add(series::GpuSeriesName(g.index, m), ts, value) && value_out) *value_out = value;
}

void TableImport::Flush(bool at_end) {
  Snapshot s = std::move(snap_);
  snap_ = Snapshot{};
  if (!s.open) return;
  ++snapshots_;
  if (s.expect_figures) {  // the last GPU line has no figures below it
    if (at_end) ++cut_gpus_;
    else ++no_figures_;
  }
  if (s.gpus.empty()) {
    if (at_end) ++cut_snapshots_;  // the file ends inside the box, above its GPU lines
    else ++empty_snapshots_;
    return;
  }
  int64_t ts;
  if (s.date_ns != INT64_MIN) {
    ts = s.date_ns;
    ++dated_;
  } else {
    ts = next_assumed_ns_;
    ++undated_;
  }
  auto step = SecondsToNs(interval_s_);
  auto next = step ? AddToTime(ts, *step) : std::nullopt;
  next_assumed_ns_ = next ? *next : ts;
  for (const GpuRow& g : s.gpus) {
    if (!g.has_figures) continue;
    ++gpu_rows_;
    double total = 0;
    Add(g, GpuMetric::kUtilPct, g.util, ts);
    Add(g, GpuMetric::kMemUsedBytes, g.mem_used, ts);
    Add(g, GpuMetric::kMemTotalBytes, g.mem_total, ts, &total);
    Add(g, GpuMetric::kPowerW, g.power_draw, ts);
    Add(g, GpuMetric::kPowerLimitW, g.power_cap, ts);
    Add(g, GpuMetric::kTempCelsius, g.temp, ts);
    sink_.DescribeGpu(g.index, g.name, RoundToInt64(total).value_or(0));
    // The Processes box lists what this snapshot's processes hold; a box that lists none (a
    // container that cannot see the host's pids, or nothing running) records nothing.
    if (s.process_rows > 0) {
      auto it = s.process_bytes.find(g.index);
      sink_.Add(series::GpuSeriesName(g.index, GpuMetric::kProcMemBytes), ts, it == s.process_bytes.end() ? 0 : it->second);
    }
  }
}

Status TableImport::Run() {
  LineReader lines(src_);
  std::string_view line;
  std::string clean;
  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    line = WithoutNuls(line, &clean, &nul_bytes_);
    Read(line, lines.line_number());
  }
  // A figures line cut short by the end of the file is the cut, not a malformed line.
  if (last_line_lacked_figures_ && lines.ended_without_newline()) --no_figures_, ++cut_gpus_;
  Flush(true);
  const std::string& name = src_.name();
  ImportDiagnostics& d = trace_.diagnostics;
  if (gpu_rows_ == 0) {
    if (no_devices_) return Status(ErrorCode::kEmptyInput, name + ": nvidia-smi's table says \"No devices were found\": no GPU samples");
    return Status(ErrorCode::kEmptyInput,
                  fmt::format("{}: nvidia-smi's table with no GPU rows ({} table header(s), no \"|   0  <GPU name>\" "
                              "line with its figures under any): no GPU samples",
                              name, snapshots_));
  }
  if (undated_ > 0) {
    if (dated_ == 0) trace_.workers[wid_.v].sample_times_assumed = true;  // none timed: order only
    d.Note(ImportIssue::kAssumedTiming,
           interval_stated_
               ? fmt::format("{}: {} of {} snapshot(s) have no date line: taken {:g} s apart (watch's interval)", name,
                             undated_, snapshots_, interval_s_)
               : fmt::format("{}: {} of {} snapshot(s) have no date line: assumed {:g} s apart (their order is known, "
                             "their interval is not)",
                             name, undated_, snapshots_, interval_s_));
  }
  if (cut_gpus_ > 0 || cut_snapshots_ > 0) {
    d.Note(ImportIssue::kTruncatedInput,
           fmt::format("{}: the last snapshot is cut ({}): the snapshots before it read", name,
                       cut_gpus_ > 0 ? fmt::format("{} GPU line(s) without their figures", cut_gpus_)
                                     : std::string("no GPU line under its banner")));
  }
  if (no_figures_ > 0) {
    d.Note(ImportIssue::kMalformedEvent,
           fmt::format("{}: {} GPU line(s) without a readable figures line below them: skipped", name, no_figures_));
    d.Count(ImportIssue::kMalformedEvent, uint64_t(no_figures_ - 1));
  }
  if (empty_snapshots_ > 0)
    d.Note(ImportIssue::kMalformedEvent,
           fmt::format("{}: {} of {} snapshot(s) list no GPU: skipped", name, empty_snapshots_, snapshots_));
  if (process_na_ > 0)
    d.Note(ImportIssue::kUnsupportedContent,
           fmt::format("{}: {} process row(s) without a memory figure (N/A): not in proc_mem_bytes", name, process_na_));
  if (outside_lines_ > 0)
    d.Note(ImportIssue::kUnsupportedContent,
           fmt::format("{}: {} line(s) outside nvidia-smi's tables skipped", name, outside_lines_));
  if (nul_bytes_ > 0) d.Note(ImportIssue::kPadding, fmt::format("{}: {} NUL byte(s) skipped", name, nul_bytes_));
  NoteLogRead(trace_, name, "nvidia-smi table");
  if (sink_.points() == 0) return Status(ErrorCode::kEmptyInput, name + ": no GPU samples in nvidia-smi's table (every figure N/A)");
  return Status::Ok();
}

}  // namespace

Status ImportNvidiaSmiTable(PeekableSource& src, Trace& trace) { return TableImport(src, trace).Run(); }

}  // namespace stepdoctor
