#include "stepdoctor/importers/samples/series_sink.h"

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {

void SeriesSink::DescribeGpu(int index, std::string_view name, int64_t memory_bytes) {
  DeviceId d = trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, index, name);
  Device& dev = trace_.devices[d.v];
  if (!name.empty()) dev.name = std::string(name);
  if (memory_bytes > 0) dev.memory_bytes = memory_bytes;
  if (dev.vendor.empty()) dev.vendor = "nvidia";
}

DeviceId SeriesSink::DeviceFor(std::string_view name) {
  int gpu = series::GpuIndexOf(name);
  if (gpu >= 0) return trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, gpu, "GPU " + std::to_string(gpu));
  return trace_.GetOrAddDevice(worker_, DeviceKind::kHostCpu, 0, "host");
}

bool SeriesSink::Add(std::string_view name, int64_t ts_ns, double value) {
  if (!TimeInRange(ts_ns)) {
    trace_.diagnostics.Count(ImportIssue::kTimeOutOfRange);
    return false;
  }
  if (series::SeriesUnit(name) == "bytes" && !RoundToInt64(value)) {
    trace_.diagnostics.Count(ImportIssue::kValueOutOfRange);
    return false;
  }
  auto it = index_.find(std::string(name));
  if (it == index_.end()) {
    CounterSeries c;
    c.worker = worker_;
    c.device = DeviceFor(name);
    c.name = std::string(name);
    c.unit = std::string(series::SeriesUnit(name));
    it = index_.emplace(c.name, trace_.counters.size()).first;
    trace_.counters.push_back(std::move(c));
  }
  CounterSeries& c = trace_.counters[it->second];
  c.ts_ns.push_back(ts_ns);
  c.value.push_back(value);
  ++points_;
  return true;
}

WorkerId AddLogWorker(Trace& trace, const std::string& path) {
  Worker w;
  w.source_path = path;
  w.hostname = path;
  return trace.AddWorker(std::move(w));
}

void NoteLogRead(Trace& trace, const std::string& path, std::string_view format) {
  trace.sources.push_back(path);
  if (trace.format.empty()) trace.format = std::string(format);
  else if (trace.format.find(format) == std::string::npos) trace.format += " + " + std::string(format);
}

}  // namespace stepdoctor
