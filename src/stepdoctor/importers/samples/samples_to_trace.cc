#include "stepdoctor/importers/samples/samples_to_trace.h"

#include <fmt/format.h>

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/line_reader.h"
#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/importers/samples/wandb_events_to_trace.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

namespace od = simdjson::ondemand;

// Parses one line with a reused parser and padded buffer (lines are small: no document-wide DOM).
class LineParser {
 public:
  simdjson::simdjson_result<od::document> Parse(std::string_view line) {
    buf_.assign(line);
    buf_.reserve(line.size() + simdjson::SIMDJSON_PADDING);
    return parser_.iterate(simdjson::padded_string_view(buf_.data(), buf_.size(), buf_.capacity()));
  }

 private:
  od::parser parser_;
  std::string buf_;
};

// Reads a value where present; a field of the wrong type is left as it was.
template <typename R, typename T>
void TryGet(R&& result, T& out) {
  if (std::forward<R>(result).get(out)) return;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void AppendFormat(Trace& trace, const char* name) {
  if (trace.format.empty()) trace.format = name;
  else if (trace.format.find(name) == std::string::npos) trace.format += std::string(" + ") + name;
}

// A stepdoctor samples line: {"ts_ns":..., "<series>": number, ...}. Returns false when the
// line is not a whole JSON object (the caller counts it); nothing of such a line is kept.
bool ImportSampleLine(od::document& doc, SeriesSink& sink, Trace& trace) {
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  // Keys may come in any order: collect, then emit once ts_ns is known.
  int64_t ts = INT64_MIN;
  std::vector<std::pair<std::string, double>> values;
  bool end_line = false;
  uint64_t bad_values = 0;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    if (key == "ts_ns") {
      if (v.get_int64().get(ts)) ts = INT64_MIN;
      continue;
    }
    if (key == "stepdoctor_samples_end") {
      end_line = true;
      continue;
    }
    if (end_line) continue;  // exit_code, samples: the run's summary, not a series
    double d;
    if (v.get_double().get(d) || !std::isfinite(d)) {
      if (v.type().error()) return false;  // not even a value: a cut or broken line
      ++bad_values;
      continue;
    }
    values.emplace_back(std::string(key), d);
  }
  if (end_line) return true;
  trace.diagnostics.Count(ImportIssue::kBadCounterValue, bad_values);
  if (ts == INT64_MIN) {
    trace.diagnostics.Count(ImportIssue::kMissingTimestamp);
    return true;
  }
  for (const auto& [k, d] : values) sink.Add(k, ts, d);
  return true;
}

// The header line: {"stepdoctor_samples":1,"hostname":...,"pid":...,"rank":...,"gpus":[...]}.
void ImportHeader(od::document& doc, Trace& trace, WorkerId w, SeriesSink& sink) {
  od::object obj;
  if (doc.get_object().get(obj)) return;
  Worker& wk = trace.workers[w.v];
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return;
    od::value v = field.value();
    if (key == "hostname") {
      std::string_view h;
      if (!v.get_string().get(h)) wk.hostname = std::string(h);
    } else if (key == "pid") {
      int64_t pid;
      if (!v.get_int64().get(pid)) wk.pid = pid;
    } else if (key == "rank") {
      int64_t rank;
      if (!v.get_int64().get(rank) && rank >= 0 && rank <= INT32_MAX) wk.rank = int(rank);
    } else if (key == "gpus") {
      od::array gpus;
      if (v.get_array().get(gpus)) continue;
      for (auto g : gpus) {
        od::object go;
        if (g.get_object().get(go)) continue;
        int64_t index = -1, mem = 0;
        std::string name;
        for (auto gf : go) {
          std::string_view gk;
          if (gf.unescaped_key().get(gk)) break;
          if (gk == "index") TryGet(gf.value().get_int64(), index);
          else if (gk == "memory_total_bytes") TryGet(gf.value().get_int64(), mem);
          else if (gk == "name") {
            std::string_view n;
            if (!gf.value().get_string().get(n)) name = std::string(n);
          }
        }
        if (index >= 0) sink.DescribeGpu(int(index), name, mem);
      }
    }
  }
}

// A SageMaker Debugger system-monitor line. False where the line is no whole JSON object (the
// caller counts it, with its line number); a whole one that lacks a field is counted here.
bool ImportSageMakerLine(od::document& doc, Trace& trace, SeriesSink& sink, Worker& wk) {
  std::string_view type, name, dim, node;
  double value = 0, ts_s = 0;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  bool has_value = false, has_ts = false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    if (key == "Type") TryGet(v.get_string(), type);
    else if (key == "Name") TryGet(v.get_string(), name);
    else if (key == "Dimension") TryGet(v.get_string(), dim);
    else if (key == "NodeId") TryGet(v.get_string(), node);
    else if (key == "Value") has_value = !v.get_double().get(value);
    else if (key == "Timestamp") has_ts = !v.get_double().get(ts_s);
  }
  if (!has_ts) {
    trace.diagnostics.Count(ImportIssue::kMissingTimestamp);
    return true;
  }
  if (!has_value || !std::isfinite(value)) {
    trace.diagnostics.Count(ImportIssue::kBadCounterValue);
    return true;
  }
  if (wk.hostname.empty() && !node.empty()) wk.hostname = std::string(node);
  std::optional<int64_t> ts = SecondsToNs(ts_s);
  if (!ts) {
    trace.diagnostics.Count(ImportIssue::kTimeOutOfRange);
    return true;
  }
  std::string target;  // the series this metric lands in
  // cpuN / gpuN name the core or GPU; the Dimension says which metric.
  auto suffix_num = [](std::string_view s, std::string_view prefix) -> int {
    if (s.substr(0, prefix.size()) != prefix || s.size() == prefix.size()) return -1;
    int n = 0;
    for (char c : s.substr(prefix.size())) {
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n;
  };
  if (dim == "CPUUtilization") {
    int core = suffix_num(name, "cpu");
    target = core >= 0 ? series::CpuCoreSeriesName(core) : std::string(series::kCpuPctTotal);
  } else if (dim == "GPUUtilization") {
    int g = suffix_num(name, "gpu");
    target = series::GpuSeriesName(std::max(g, 0), series::GpuMetric::kUtilPct);
  } else if (dim == "GPUMemoryUtilization") {
    int g = suffix_num(name, "gpu");
    target = series::GpuSeriesName(std::max(g, 0), series::GpuMetric::kMemUsedPct);
  } else {
    trace.diagnostics.Count(ImportIssue::kUnsupportedContent);
    return true;
  }
  sink.Add(target, *ts, value);
  return true;
}

}  // namespace

Status ImportSamplesJsonLines(PeekableSource& src, Trace& trace) {
  LineReader lines(src);
  LineParser parser;
  Worker w;
  w.source_path = src.name();
  WorkerId wid = trace.AddWorker(std::move(w));
  SeriesSink sink(trace, wid);
  const uint64_t out_of_range_before = trace.diagnostics.count(ImportIssue::kTimeOutOfRange);
  enum class Dialect { kUnknown, kStepdoctor, kSageMaker, kWandb } dialect = Dialect::kUnknown;
  WandbEventsImporter wandb(trace, sink, src.name());
  std::string_view line;
  int64_t bad_lines = 0, line_no = 0, first_bad = 0, read = 0;
  for (;;) {
    auto more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    ++line_no;
    line = Trim(line);
    if (line.empty()) continue;
    auto doc = parser.Parse(line);
    if (dialect == Dialect::kUnknown) {
      bool header = line.find("\"stepdoctor_samples\"") != std::string_view::npos;
      const WandbLineKind wandb_kind = ClassifyWandbLine(line);
      dialect = header ? Dialect::kStepdoctor
                : line.find("\"Dimension\"") != std::string_view::npos ? Dialect::kSageMaker
                : wandb_kind == WandbLineKind::kSystemMetrics            ? Dialect::kWandb
                                                                         : Dialect::kUnknown;
      if (dialect == Dialect::kUnknown && wandb_kind == WandbLineKind::kHistory)
        return Status(ErrorCode::kUnknownFormat,
                      src.name() + ": W&B metric history (wandb-history.jsonl: _step and logged metrics), not system "
                                   "metrics; give the run's wandb-events.jsonl");
      if (dialect == Dialect::kUnknown)
        return Status(ErrorCode::kUnknownFormat,
                      src.name() + ": JSON lines that are neither stepdoctor samples, SageMaker nor W&B system metrics");
      if (header) {
        if (doc.error()) return Status(ErrorCode::kCorruptInput, src.name() + ": unreadable samples header");
        ImportHeader(doc.value_unsafe(), trace, wid, sink);
        continue;
      }
    }
    bool ok = !doc.error();
    if (ok && dialect == Dialect::kStepdoctor) ok = ImportSampleLine(doc.value_unsafe(), sink, trace);
    else if (ok && dialect == Dialect::kWandb) ok = wandb.ImportLine(doc.value_unsafe());
    else if (ok) ok = ImportSageMakerLine(doc.value_unsafe(), trace, sink, trace.workers[wid.v]);
    if (ok) {
      ++read;
    } else if (bad_lines++ == 0) {
      first_bad = line_no;
    }
  }
  if (dialect == Dialect::kWandb) wandb.Finish();
  if (bad_lines > 0) {
    // A last line cut mid-write (a run killed while writing) is a truncation, not corruption.
    if (lines.ended_without_newline() && bad_lines == 1) trace.diagnostics.Count(ImportIssue::kTruncatedInput);
    else {
      trace.diagnostics.Count(ImportIssue::kMalformedEvent, uint64_t(bad_lines - 1));  // Note counts one
      trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                             bad_lines == 1
                                 ? fmt::format("{}: line {} is not a whole JSON object (cut short?), skipped; {} lines read",
                                               src.name(), first_bad, read)
                                 : fmt::format("{}: {} lines are not whole JSON objects, skipped (the first: line {}); {} "
                                               "lines read",
                                               src.name(), bad_lines, first_bad, read));
    }
  }
  Worker& wk = trace.workers[wid.v];
  if (wk.hostname.empty()) wk.hostname = src.name();
  trace.sources.push_back(src.name());
  AppendFormat(trace, dialect == Dialect::kSageMaker ? "sagemaker-system-metrics"
                      : dialect == Dialect::kWandb   ? "wandb-system-metrics"
                                                     : "stepdoctor-samples");
  if (sink.points() == 0) {
    const uint64_t out_of_range = trace.diagnostics.count(ImportIssue::kTimeOutOfRange) - out_of_range_before;
    return Status(ErrorCode::kEmptyInput,
                  src.name() + ": no samples in the file" +
                      (out_of_range ? ": " + std::to_string(out_of_range) +
                                          " skipped, their time outside the representable range (about 1823-2116)"
                                    : std::string()));
  }
  return Status::Ok();
}

}  // namespace stepdoctor
