// Weights & Biases system metrics (a run folder's wandb-events.jsonl, written by older clients,
// or the "events" stream of a run's exported history) -> Trace::counters. One JSON object per
// line, a sample every 15-30 s: {"system.gpu.0.gpu": 4.07, "system.cpu": 65.27, ...,
// "_timestamp": 1582070941, "_runtime": 28, "_wandb": true}. The JSON-lines samples importer
// (samples_to_trace.h) tells the dialect apart by the first line and hands each parsed line here.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stepdoctor/importers/samples/series_sink.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// What a first line says about a W&B file.
enum class WandbLineKind {
  kNotWandb,       // no W&B keys: another dialect, or none
  kSystemMetrics,  // "system.<...>" keys: wandb-events.jsonl
  kHistory,        // W&B keys (_step, _runtime, _timestamp, _wandb) but no "system." one:
                   // wandb-history.jsonl, the metrics the script logged, which we do not read
};
// Looks at the keys' text only, like the other dialects' detection (no parse needed).
WandbLineKind ClassifyWandbLine(std::string_view line);

class WandbEventsImporter {
 public:
  WandbEventsImporter(Trace& trace, SeriesSink& sink, std::string source)
      : trace_(trace), sink_(sink), source_(std::move(source)) {}
  // Imports one parsed line. False when it is not a whole JSON object (the caller counts it);
  // a mapped key with a value that is not a number is counted in trace.diagnostics and skipped,
  // keys we do not map are ignored.
  bool ImportLine(simdjson::ondemand::document& doc);
  // Notes what the file's times are (a run timed only by _runtime). Call once after the last line.
  void Finish();

 private:
  struct Counter {  // a cumulative byte count (network), turned into a rate between samples
    std::optional<double> last;
    int64_t last_ts_ns = 0;
  };
  void AddRate(Counter& c, std::string_view series, int64_t ts_ns, double total);

  Trace& trace_;
  SeriesSink& sink_;
  std::string source_;
  // Decided by the first timed line: true when it has no _timestamp, and then every line is
  // timed by _runtime (seconds since the run started), never mixed with wall-clock times.
  std::optional<bool> runtime_only_;
  std::optional<double> runtime_offset_s_;  // _timestamp - _runtime of the last line with both
  Counter net_sent_, net_recv_;
};

}  // namespace stepdoctor
