// What a fix would give: the step time a what-if replay predicts, with its range, what bounds the
// predicted step, and the assumptions it rests on. Filled by analysis/whatif; printed by
// render/whatif_render and beside each finding of a diagnosis.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/report/critical_path.h"

namespace stepdoctor {

struct StepPart {          // one part of the predicted step, for "what dominates it"
  std::string part;        // device_busy, host_work, input, sync, loader, cpu
  double ms = 0;           // per step (mean)
};

struct Prediction {
  std::string fix;                 // the fix as asked: "input", "input:workers=4", "launch", ...
  bool predicted = false;          // false: the model cannot say (why_not tells why)
  std::string why_not;
  double baseline_step_ms = 0;     // measured mean step
  double baseline_median_ms = 0;   // measured median step
  double model_baseline_ms = 0;    // mean step of the untransformed replay (how well the model fits)
  double predicted_step_ms = 0;    // mean predicted step
  double predicted_median_ms = 0;
  double low_ms = 0, high_ms = 0;  // the range the prediction's assumptions allow
  double speedup = 1;              // baseline_step_ms / predicted_step_ms
  double batch_scale = 1;          // items per step against today's (the batch fix)
  double throughput_speedup = 1;   // items per second against today's: speedup * batch_scale
  std::string bound_by;            // what sets the predicted step: device, host, input, loader, cpu
  std::vector<std::string> assumptions;
  std::vector<StepPart> critical_path;  // the predicted step's parts, largest first
};

struct WhatIfReport {
  std::vector<std::string> inputs;
  std::string format;
  int steps = 0;
  int cores = 0;                   // as used (0 unknown)
  std::vector<Prediction> predictions;
  std::vector<std::string> notes;  // what the model could not use ("no launch edges", ...)
  CriticalPathSummary critical_path;  // each measured step's, with every segment
};

}  // namespace stepdoctor
