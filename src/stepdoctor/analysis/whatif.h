// StepModel + a fix -> Prediction: the model is edited as the fix would change it and replayed
// along its edges (docs/whatif.md). The replay re-times the host's path segment by segment; each
// device operation starts once its launch has happened and its stream is free, plus the extra
// delay it showed in the trace (a wait on another stream, queue latency); a host wait on the
// device ends when the work it waited for ends, plus the latency it showed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/step_model.h"
#include "stepdoctor/core/result.h"
#include "stepdoctor/report/whatif.h"

namespace stepdoctor {

enum class FixKind : uint8_t {
  kInput,   // the input wait hidden: loader workers / tf.data parallel map and prefetch
  kLaunch,  // launch and framework overhead removed: one launch per step (graphs, compilation)
  kStalls,  // periodic stalls (checkpoint, evaluation, logging steps) removed or made asynchronous
  kAmp,     // mixed precision on the kernels that can use it
  kOverlap, // communication overlapped with compute (DDP buckets, FSDP prefetch): off the step's path
  kCpuWork, // operators computing on CPU tensors inside the step made on the device or in the input pipeline
  kComm,    // the job scaled to N devices: each collective re-timed by an alpha-beta ring model (whatif_comm.cc)
  kBatch,   // the batch (items per step) scaled: per-item work scales, per-step overhead stays
};

struct FixSpec {
  FixKind kind = FixKind::kInput;
  int workers = 0;   // input: loader workers; 0 = as many as it takes
  int devices = 0;   // comm: the devices to scale to (>= 2)
  std::string link;  // comm: the link to scale over (kCommLinks' names); empty: the one recorded
  double scale = 0;  // batch: items per step against today's (0.1-64, not 1)
  std::string text;  // as written
};

// "input", "input:workers=N", "launch", "stalls", "amp", "overlap", "cpuwork",
// "comm:devices=N[,link=L]", "batch:scale=K"; an error naming what is accepted.
[[nodiscard]] Result<FixSpec> ParseFix(std::string_view text);
// The fixes ParseFix accepts, for help text.
std::string FixSyntaxHelp();

struct WhatIfOptions {
  int cores = 0;  // CPU cores of the machine that ran the job (0 unknown: StepModel::cores)
};

// The replay tolerance: a prediction's range is at least this far either side of its point
// (the untransformed replay reproduces the measured steps of the corpus within it).
inline constexpr double kReplayTolerancePct = 5.0;
// Where the replay of the trace as recorded misses its measured mean step by more than this, the
// model does not reproduce these steps and no fix is predicted from it (it says so instead).
inline constexpr double kReplayMaxErrorPct = 15.0;

Prediction PredictFix(const StepModel& model, const FixSpec& fix, const WhatIfOptions& opts);

}  // namespace stepdoctor
