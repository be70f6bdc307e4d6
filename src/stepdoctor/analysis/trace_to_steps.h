// Trace -> step windows of one worker: from ProfilerStep#N markers, TensorFlow step lines and
// Keras/SageMaker step annotations; the whole window as one region when there are none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct StepWindow {
  int64_t number = 0;  // N of ProfilerStep#N, step_num, or the ordinal
  int64_t start_ns = 0, end_ns = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
};

struct StepWindows {
  std::vector<StepWindow> steps;  // sorted by start, non-overlapping
  std::string source;             // what the steps came from, for the report
  bool whole_window = false;      // no markers: one region spanning the trace
  int excluded_partial = 0;       // markers dropped as cut by the window edges or empty
  int64_t window_start_ns = 0, window_end_ns = 0;  // the worker's activity span
};

StepWindows TraceToSteps(const Trace& trace, WorkerId worker);

// The worker whose steps the report describes: the one with the most events.
WorkerId PrimaryWorker(const Trace& trace);

}  // namespace stepdoctor
