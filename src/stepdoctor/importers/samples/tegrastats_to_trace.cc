#include "stepdoctor/importers/samples/tegrastats_to_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
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

using series::GpuMetric;

constexpr double kDefaultIntervalS = 1.0;  // tegrastats' default --interval (1000 ms)
constexpr double kMiB = 1024.0 * 1024.0;

// The number at the start of `s` ("39%@[305,0]" -> 39), or nothing (not a finite number, negative).
std::optional<double> LeadingNumber(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data() || !std::isfinite(v) || v < 0) return std::nullopt;  // no "nan", "inf", "-3"
  return v;
}

// The token after `key ` in `line` ("GR3D_FREQ 39%@[305,0]" -> "39%@[305,0]"), matching `key` as
// a whole word; empty where absent.
std::string_view After(std::string_view line, std::string_view key) {
  for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    const bool starts = at == 0 || line[at - 1] == ' ';
    const size_t end = at + key.size();
    if (!starts || end >= line.size() || line[end] != ' ') continue;
    std::string_view rest = line.substr(end + 1);
    return rest.substr(0, rest.find(' '));
  }
  return {};
}

// "--interval 500" (ms) on a tegrastats command line the log shows: seconds, or 0.
double IntervalOf(std::string_view line) {
  if (line.find("tegrastats") == std::string_view::npos) return 0;
  const size_t p = line.find("--interval");
  if (p == std::string_view::npos) return 0;
  std::string_view rest = line.substr(p + 10);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" =")));
  const std::optional<double> ms = LeadingNumber(rest);
  return ms && *ms > 0 ? *ms / 1000.0 : 0;
}

}  // namespace

bool IsTegrastatsLine(std::string_view line) {
  return !After(line, "RAM").empty() && (!After(line, "GR3D_FREQ").empty() || !After(line, "GR3D").empty());
}

Status ImportTegrastats(PeekableSource& src, Trace& trace) {
  const std::string& name = src.name();
  LineReader lines(src);
  const WorkerId wid = AddLogWorker(trace, name);
  SeriesSink sink(trace, wid);
  double interval_s = 0;
  int64_t rows = 0, untimed = 0, other = 0, bad_times = 0;
  std::string_view line;
  while (true) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (!IsTegrastatsLine(line)) {
      if (double d = IntervalOf(line); d > 0) interval_s = d;
      other += !line.empty();
      continue;
    }
    // The stamp: the two fields before "RAM", where they read as a date and a time.
    int64_t ts = 0;
    const size_t ram = line.find("RAM ");
    bool timed = false;
    if (ram > 0 && ram != std::string_view::npos) {
      std::string_view stamp = line.substr(0, ram);
      while (!stamp.empty() && stamp.back() == ' ') stamp.remove_suffix(1);
      const TimeParse r = csv::ParseTimestamp(stamp, &ts, csv::DateOrder::kMonthFirst);  // tegrastats writes MM-DD-YYYY
      if (r == TimeParse::kOk) timed = true;
      else if (!stamp.empty()) ++bad_times;
    }
    if (!timed) {
      auto step = SecondsToNs(interval_s > 0 ? interval_s : kDefaultIntervalS);
      auto at = step ? CheckedMul(untimed, *step) : std::nullopt;
      ts = at ? *at : INT64_MAX;
      ++untimed;
    }
    ++rows;
    std::string_view gr3d = After(line, "GR3D_FREQ");
    if (gr3d.empty()) gr3d = After(line, "GR3D");
    if (auto v = LeadingNumber(gr3d)) sink.Add(series::GpuSeriesName(0, GpuMetric::kUtilPct), ts, *v);
    for (std::string_view rail : {"VDD_GPU_SOC", "VDD_GPU", "POM_5V_GPU", "GPU"})
      if (auto mw = LeadingNumber(After(line, rail))) {
        sink.Add(series::GpuSeriesName(0, GpuMetric::kPowerW), ts, *mw / 1000.0);
        break;
      }
    // Temperatures: "gpu@40.093C" (older: "GPU@40C").
    for (std::string_view key : {" gpu@", " GPU@"})
      if (size_t p = line.find(key); p != std::string_view::npos) {
        if (auto c = LeadingNumber(line.substr(p + key.size()))) sink.Add(series::GpuSeriesName(0, GpuMetric::kTempCelsius), ts, *c);
        break;
      }
    // "CPU [7%@1728,31%@1036,off,...]": each online core's busy share.
    if (size_t p = line.find("CPU ["); p != std::string_view::npos) {
      std::string_view cores = line.substr(p + 5, line.find(']', p) - (p + 5));
      double sum = 0;
      int online = 0, core = 0;
      while (!cores.empty()) {
        const std::string_view c = cores.substr(0, cores.find(','));
        if (auto v = LeadingNumber(c)) {
          sink.Add(series::CpuCoreSeriesName(core), ts, *v);
          sum += *v;
          ++online;
        }
        ++core;
        cores = c.size() < cores.size() ? cores.substr(c.size() + 1) : std::string_view{};
      }
      if (online > 0) sink.Add(series::kCpuPctTotal, ts, sum / online);
    }
    // "RAM 17953/62841MB": used and total, the memory CPU and GPU share.
    std::string_view mem = After(line, "RAM");
    const size_t slash = mem.find('/');
    if (slash != std::string_view::npos) {
      auto used = LeadingNumber(mem.substr(0, slash));
      auto total = LeadingNumber(mem.substr(slash + 1));
      if (used && total && *total >= *used) {
        sink.Add(series::kMemTotalBytes, ts, *total * kMiB);
        sink.Add(series::kMemAvailableBytes, ts, (*total - *used) * kMiB);
      }
    }
  }
  if (rows == 0) return Status(ErrorCode::kEmptyInput, name + ": no tegrastats line (RAM ... GR3D_FREQ ...) in the file");
  ImportDiagnostics& d = trace.diagnostics;
  if (untimed > 0) {
    if (untimed == rows) trace.workers[wid.v].sample_times_assumed = true;
    d.Note(ImportIssue::kAssumedTiming,
           fmt::format("{}: {} of {} line(s) without a date and time: taken {:g} s apart ({})", name, untimed, rows,
                       interval_s > 0 ? interval_s : kDefaultIntervalS,
                       interval_s > 0 ? "tegrastats --interval" : "tegrastats' default interval"));
  }
  if (bad_times > 0)
    d.Note(ImportIssue::kBadTimestamp, fmt::format("{}: {} line(s) whose leading stamp is not a date and time", name, bad_times));
  if (other > 0)
    d.Note(ImportIssue::kUnsupportedContent, fmt::format("{}: {} line(s) that are not tegrastats' skipped", name, other));
  d.Note(ImportIssue::kUnsupportedContent,
         fmt::format("{}: a Jetson shares its RAM between CPU and GPU: tegrastats gives no GPU memory figure, so memory "
                     "is read as the host's",
                     name));
  NoteLogRead(trace, name, "tegrastats");
  return Status::Ok();
}

}  // namespace stepdoctor
