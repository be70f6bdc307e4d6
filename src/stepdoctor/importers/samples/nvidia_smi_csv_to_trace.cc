#include "stepdoctor/importers/samples/nvidia_smi_csv_to_trace.h"

#include <charconv>
#include <cmath>
#include <ctime>
#include <string>
#include <vector>

#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/series_sink.h"

namespace stepdoctor {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits one CSV record (which may hold newlines inside quotes) into unquoted fields.
std::vector<std::string> SplitCsv(std::string_view rec) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < rec.size(); ++i) {
    char c = rec[i];
    if (quoted) {
      if (c == '"' && i + 1 < rec.size() && rec[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// What a column holds, from its header name.
enum class Col { kIgnore, kTimestamp, kElapsed, kIndex, kName, kUtil, kMemUtil, kMemUsed, kMemTotal, kPower, kSmClock, kTemp };

struct Column {
  Col what = Col::kIgnore;
  double scale = 1;  // to the series' unit (bytes for memory)
};

constexpr double kMiB = 1024.0 * 1024.0;

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
  if (h == "timestamp" || h == "time" || h == "unix_time") return {Col::kTimestamp};
  if (h == "elapsed_sec" || h == "elapsed_s" || h == "elapsed" || h == "time_s" || h == "seconds") return {Col::kElapsed};
  if (h == "index" || h == "gpu_index" || h == "gpu") return {Col::kIndex};
  if (h == "name" || h == "gpu_name") return {Col::kName};
  if (h == "utilization.gpu" || h == "gpu_util_pct" || h == "gpu_util" || h == "util_pct" || h == "gpu_utilization")
    return {Col::kUtil};
  if (h == "utilization.memory" || h == "mem_util_pct") return {Col::kMemUtil};
  if (h == "memory.used" || h == "mem_used_mb" || h == "memory_used_mb" || h == "mem_used_mib")
    return {Col::kMemUsed, h.find("_mb") != std::string::npos || h.find("_mib") != std::string::npos ? kMiB : mem_scale};
  if (h == "memory.total" || h == "mem_total_mb" || h == "memory_total_mb" || h == "mem_total_mib")
    return {Col::kMemTotal, h.find("_mb") != std::string::npos || h.find("_mib") != std::string::npos ? kMiB : mem_scale};
  if (h == "power.draw" || h == "power_w" || h == "power_draw_w" || h == "power.draw.instant") return {Col::kPower};
  if (h == "clocks.sm" || h == "clocks.current.sm" || h == "sm_clock_mhz") return {Col::kSmClock};
  if (h == "temperature.gpu" || h == "temp_c" || h == "temperature_c") return {Col::kTemp};
  return {};
}

// "20 %", "1024 MiB", "75.31 W", "1410 MHz" -> the number (and a MiB/GiB/KiB scale in *unit_scale, else 0);
// false for text ("[N/A]", a quoted "26.11\n0").
bool ParseNumber(std::string_view s, double* out, double* unit_scale) {
  s = Trim(s);
  *unit_scale = 0;  // 0: no unit in the value
  size_t sp = s.find(' ');
  if (sp != std::string_view::npos) {
    std::string_view u = Trim(s.substr(sp + 1));
    if (u == "MiB") *unit_scale = kMiB;
    else if (u == "GiB") *unit_scale = kMiB * 1024;
    else if (u == "KiB") *unit_scale = 1024;
    s = s.substr(0, sp);
  }
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

// "2024/01/15 10:23:45.123" (nvidia-smi, local time) or seconds since the epoch.
bool ParseTimestamp(std::string_view s, int64_t* ns) {
  s = Trim(s);
  double secs;
  double unused;
  if (ParseNumber(s, &secs, &unused)) {
    *ns = int64_t(std::llround(secs * 1e9));
    return true;
  }
  std::tm tm{};
  int ms = 0;
  std::string str(s);
  const char* end = strptime(str.c_str(), "%Y/%m/%d %H:%M:%S", &tm);
  if (!end) end = strptime(str.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (!end) return false;
  if (*end == '.') {
    int digits = 0;
    for (++end; *end >= '0' && *end <= '9'; ++end)
      if (digits++ < 3) ms = ms * 10 + (*end - '0');
    while (digits++ < 3) ms *= 10;
  }
  tm.tm_isdst = -1;
  time_t t = std::mktime(&tm);
  if (t == time_t(-1)) return false;
  *ns = int64_t(t) * 1000000000 + int64_t(ms) * 1000000;
  return true;
}

const char* SeriesSuffix(Col c) {
  switch (c) {
    case Col::kUtil: return "util_pct";
    case Col::kMemUtil: return "mem_util_pct";
    case Col::kMemUsed: return "mem_used_bytes";
    case Col::kMemTotal: return "mem_total_bytes";
    case Col::kPower: return "power_w";
    case Col::kSmClock: return "sm_clock_mhz";
    case Col::kTemp: return "temp_celsius";
    default: return nullptr;
  }
}

}  // namespace

Status ImportGpuCsv(PeekableSource& src, Trace& trace) {
  LineReader lines(src);
  std::string_view line;
  std::string record;
  std::vector<Column> cols;
  Worker w;
  w.source_path = src.name();
  w.hostname = src.name();
  WorkerId wid = trace.AddWorker(std::move(w));
  SeriesSink sink(trace, wid);
  bool have_time = false, have_metric = false;
  int64_t bad_values = 0, bad_rows = 0, rows = 0;
  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    // Join physical lines while a quote is open (RFC 4180 fields may hold newlines).
    record.append(line);
    size_t quotes = 0;
    for (char c : record) quotes += c == '"';
    if (quotes % 2 == 1) {
      record += '\n';
      continue;
    }
    std::vector<std::string> f = SplitCsv(record);
    record.clear();
    if (f.size() == 1 && Trim(f[0]).empty()) continue;
    if (cols.empty()) {
      for (const auto& h : f) {
        cols.push_back(Classify(h));
        have_time |= cols.back().what == Col::kTimestamp || cols.back().what == Col::kElapsed;
        have_metric |= SeriesSuffix(cols.back().what) != nullptr;
      }
      if (!have_time || !have_metric)
        return Status(ErrorCode::kUnknownFormat,
                      src.name() + ": CSV without a time column and a GPU metric column (not an nvidia-smi log)");
      continue;
    }
    ++rows;
    if (f.size() < cols.size()) {
      ++bad_rows;
      continue;
    }
    int64_t ts = INT64_MIN;
    int gpu = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
      double v, scale;
      if (cols[i].what == Col::kTimestamp && ParseTimestamp(f[i], &ts)) continue;
      if (cols[i].what == Col::kElapsed && ParseNumber(f[i], &v, &scale)) ts = int64_t(std::llround(v * 1e9));
      if (cols[i].what == Col::kIndex && ParseNumber(f[i], &v, &scale)) gpu = int(v);
    }
    if (ts == INT64_MIN) {
      trace.diagnostics.Count(ImportIssue::kMissingTimestamp);
      continue;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].what == Col::kName) {
        sink.DescribeGpu(gpu, Trim(f[i]), 0);
        continue;
      }
      const char* suffix = SeriesSuffix(cols[i].what);
      if (!suffix) continue;
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
      sink.Add("gpu" + std::to_string(gpu) + "_" + suffix, ts, v * scale);
    }
  }
  if (!record.empty()) trace.diagnostics.Count(ImportIssue::kTruncatedInput);  // an unclosed quote at the end
  if (bad_rows > 0)
    trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                           src.name() + ": " + std::to_string(bad_rows) + " of " + std::to_string(rows) +
                               " rows have fewer fields than the header"),
        trace.diagnostics.Count(ImportIssue::kMalformedEvent, uint64_t(bad_rows - 1));
  // The memory total is a property of the GPU: record it on the device too.
  for (const CounterSeries& c : trace.counters)
    if (c.worker == wid && c.name.ends_with("_mem_total_bytes") && !c.value.empty())
      trace.devices[c.device.v].memory_bytes = int64_t(c.value.back());
  trace.sources.push_back(src.name());
  if (trace.format.empty()) trace.format = "nvidia-smi csv";
  else if (trace.format.find("nvidia-smi csv") == std::string::npos) trace.format += " + nvidia-smi csv";
  if (sink.points() == 0) return Status(ErrorCode::kEmptyInput, src.name() + ": no GPU samples in the CSV");
  return Status::Ok();
}

}  // namespace stepdoctor
