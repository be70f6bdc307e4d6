#include "stepdoctor/importers/samples/series_sink.h"

#include "stepdoctor/live/sample.h"

namespace stepdoctor {

int GpuIndexOf(std::string_view s) {
  if (s.substr(0, 3) != "gpu") return -1;
  size_t i = 3;
  int n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 8) n = n * 10 + (s[i++] - '0');
  if (i == 3 || i >= s.size() || s[i] != '_') return -1;
  return n;
}

void SeriesSink::DescribeGpu(int index, std::string_view name, int64_t memory_bytes) {
  DeviceId d = trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, index, name);
  Device& dev = trace_.devices[d.v];
  if (!name.empty()) dev.name = std::string(name);
  if (memory_bytes > 0) dev.memory_bytes = memory_bytes;
  if (dev.vendor.empty()) dev.vendor = "nvidia";
}

DeviceId SeriesSink::DeviceFor(std::string_view series) {
  int gpu = GpuIndexOf(series);
  if (gpu >= 0) return trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, gpu, "GPU " + std::to_string(gpu));
  return trace_.GetOrAddDevice(worker_, DeviceKind::kHostCpu, 0, "host");
}

void SeriesSink::Add(std::string_view series, int64_t ts_ns, double value) {
  auto it = index_.find(std::string(series));
  if (it == index_.end()) {
    CounterSeries c;
    c.worker = worker_;
    c.device = DeviceFor(series);
    c.name = std::string(series);
    c.unit = std::string(live::SeriesUnit(series));
    it = index_.emplace(c.name, trace_.counters.size()).first;
    trace_.counters.push_back(std::move(c));
  }
  CounterSeries& c = trace_.counters[it->second];
  c.ts_ns.push_back(ts_ns);
  c.value.push_back(value);
  ++points_;
}

}  // namespace stepdoctor
