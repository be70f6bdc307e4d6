#include "stepdoctor/live/monitor.h"

#include <time.h>

#include <algorithm>

#include "stepdoctor/live/child_process.h"

namespace stepdoctor::live {
namespace {

constexpr int64_t kPollNs = 20000000;  // how often the loop checks for the child's exit between samples

void SleepNs(int64_t ns) {
  timespec ts{time_t(ns / 1000000000), long(ns % 1000000000)};
  nanosleep(&ts, nullptr);
}

}  // namespace

MonitorResult RunMonitor(LiveSampler& sampler, SamplesWriter* writer, const MonitorOptions& opts) {
  MonitorResult r;
  const int64_t start = MonotonicNowNs();
  int64_t next = start;
  auto take = [&] {
    Sample s = sampler.Take();
    ++r.samples;
    r.end_ns = s.ts_ns;
    if (writer) writer->Write(s);
    if (opts.on_sample) opts.on_sample(s, r.samples);
  };
  for (;;) {
    take();
    if (opts.child_pid <= 0 && !sampler.tree_alive()) break;  // watch: the job is gone
    next += opts.interval_ns;
    bool done = false;
    for (;;) {
      int64_t now = MonotonicNowNs();
      if (opts.stop && opts.stop->load()) done = true;
      if (opts.duration_ns > 0 && now - start >= opts.duration_ns) done = true;
      if (opts.child_pid > 0 && ChildExited(opts.child_pid)) {
        take();  // the zombie's /proc entry still holds its totals
        done = true;
      }
      if (done || now >= next) break;
      SleepNs(std::min(kPollNs, next - now));
    }
    if (done) break;
    // Fell behind (a stopped machine, a long NVML call): skip ticks rather than burst.
    int64_t now = MonotonicNowNs();
    if (now - next > opts.interval_ns) next = now;
  }
  return r;
}

}  // namespace stepdoctor::live
