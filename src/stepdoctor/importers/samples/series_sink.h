// Appends named samples to Trace::counters of one worker: a series named gpu<N>_... lands on
// GPU N's device (created on first use), anything else on the worker's host-CPU device.
// Units follow the name's suffix (series::SeriesUnit in model/series_names.h).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// A worker for one log file: named by its path, as a log holds no host name.
WorkerId AddLogWorker(Trace& trace, const std::string& path);
// Records `path` as read, and `format` among the trace's formats ("nvidia-smi csv + tegrastats":
// each named once, in the order first read).
void NoteLogRead(Trace& trace, const std::string& path, std::string_view format);

class SeriesSink {
 public:
  SeriesSink(Trace& trace, WorkerId worker) : trace_(trace), worker_(worker) {}
  // Names GPU `index` and records its memory (from a samples header or a CSV name column).
  void DescribeGpu(int index, std::string_view name, int64_t memory_bytes);
  // Appends one sample; false (and counted in the trace's diagnostics) when its time is outside
  // the range (core/checked_time.h) or a byte count too large for int64, which devices and
  // analyses hold byte counts in.
  bool Add(std::string_view name, int64_t ts_ns, double value);
  size_t points() const { return points_; }

 private:
  DeviceId DeviceFor(std::string_view name);
  Trace& trace_;
  WorkerId worker_;
  std::unordered_map<std::string, size_t> index_;  // series name -> Trace::counters index
  size_t points_ = 0;
};

}  // namespace stepdoctor
