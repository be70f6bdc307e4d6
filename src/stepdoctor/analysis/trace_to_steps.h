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

// A first step this many times slower than the median of the others is warm-up (cuDNN
// autotune, allocator growth, lazy module loading): shown, kept out of the verdict.
inline constexpr double kWarmupStepFactor = 2.0;
// A slow first step is one of the run's stalls, not warm-up, when later steps stall too (over
// kOutlierStepFactor x the median) and the slowest of them is at least 1 / this of the first: a
// checkpoint or evaluation step that happens to come first.
inline constexpr double kWarmupOverStallFactor = 2.5;
// Warm-up is only judged with at least this many steps (two say nothing about which is normal).
inline constexpr int kMinStepsForWarmup = 3;

struct StepWindows {
  std::vector<StepWindow> steps;  // sorted by start, non-overlapping; warm-up excluded
  std::vector<StepWindow> warmup; // leading steps excluded as warm-up (see kWarmupStepFactor)
  std::string source;             // what the steps came from, for the report
  bool whole_window = false;      // no markers: one region spanning the trace
  int64_t profiler_calls_ns = 0;  // whole window: the profiler's start/stop calls' time left out of it
  bool inferred = false;          // no markers: iterations inferred from repeated host structure,
                                  // or the one run the trace records (single_run)
  bool single_run = false;        // no markers: the window is the one run the trace records
                                  // (Worker::single_run), one inferred step
  // Steps left out: empty markers, markers overlapping a step already kept, and inferred
  // iterations cut by the window edges.
  int excluded_partial = 0;
  int64_t window_start_ns = 0, window_end_ns = 0;  // the worker's activity span
};

StepWindows TraceToSteps(const Trace& trace, WorkerId worker);

// Step annotations that are not EventKind::kStepMarker at import: Keras' train_function,
// SageMaker's Step:ModeKeys.TRAIN, and the ranges users name after a step ("train_step",
// "training_step_12", "Iteration 3", "step#4"). They bound a step; they are not operators inside it.
bool IsStepAnnotationName(std::string_view name);

// The profiler's own start and stop calls as a Python tracer records them: a frame of a
// `profiler.py` whose function is start_trace / stop_trace (JAX: "$profiler.py:91 start_trace";
// the autograd profiler: "torch/autograd/profiler.py(381): _start_trace"). Without step markers
// the window analysed is what lies between them: their time is the profiler's, not the job's.
enum class ProfilerControl : uint8_t { kNone, kStart, kStop };
ProfilerControl ProfilerControlOf(std::string_view name);

// IsStepAnnotationName by name id, each distinct name judged once.
class StepAnnotationNames {
 public:
  explicit StepAnnotationNames(const Trace& trace) : trace_(trace), memo_(trace.strings.size(), -1) {}
  bool operator()(StringId id);

 private:
  const Trace& trace_;
  std::vector<int8_t> memo_;
};

// The worker whose steps the report describes: the one with the most events.
WorkerId PrimaryWorker(const Trace& trace);

}  // namespace stepdoctor
