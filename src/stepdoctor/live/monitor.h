// The sampling loop behind `run` and `watch`: a sample every interval until the child exits,
// the watched tree is gone, the duration is up or `stop` is set.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "stepdoctor/live/live_sampler.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::live {

struct MonitorOptions {
  int64_t interval_ns = 1000000000;  // between samples
  int64_t duration_ns = 0;           // 0: no limit
  int64_t child_pid = -1;            // `run`: stop once this child exits (left unreaped for the caller)
  const std::atomic<bool>* stop = nullptr;
  // Called after each sample with the number of samples so far (the status line).
  std::function<void(const Sample&, int64_t n)> on_sample;
};

struct MonitorResult {
  int64_t samples = 0;
  int64_t end_ns = 0;  // epoch ns of the last sample
};

// REQUIRED: `writer` has its header written; it may be null (samples are then only passed to
// on_sample). The last sample is taken after the child exits but before it is reaped, so the
// final interval's CPU time is counted.
MonitorResult RunMonitor(LiveSampler& sampler, SamplesWriter* writer, const MonitorOptions& opts);

}  // namespace stepdoctor::live
