// The what-if's replay, shared by the fixes (whatif.cc, whatif_comm.cc): an Edit says how a fix
// changes the step model's parts; Replay re-times the model's host path and device work with it
// (docs/whatif.md); Calibrated puts a replay on the measured scale; SetPoint and Finish fill a
// Prediction from replays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/analysis/step_model.h"
#include "stepdoctor/report/whatif.h"

namespace stepdoctor::whatif_replay {

struct Edit {
  double input_scale = 1;          // input waits x this
  double work_scale = 1;           // the host's own work x this
  double cpu_work_scale = 1;       // operators computing on CPU tensors (HostPart::kCpuWork) x this
  int64_t work_floor_ns = 0;       // added once at each step's start (the launch that remains)
  double (*device_factor)(const DeviceOp&, int which) = nullptr;  // speed-up of an op (>= 1)
  // Per device op (indexed as StepModel::device), a speed-up multiplied into device_factor's
  // (< 1: slower); empty for none.
  const std::vector<double>* op_factors = nullptr;
  int which = 0;                   // passed to device_factor: 0 low, 1 high, 2 mid
  // An op's observed wait for a communication kernel on another stream (it started as one
  // ended) is dropped: what the overlap fix removes. Its delay after that end stays.
  bool drop_comm_waits = false;
};

struct Replayed {
  std::vector<double> step_ms;
  double work_ms = 0, input_ms = 0, sync_ms = 0, startup_ms = 0, untraced_ms = 0, device_busy_ms = 0;  // per step
};

// The model replayed under the edit.
Replayed Replay(const StepModel& m, const Edit& e);
double Mean(const std::vector<double>& v);
// A replay on the measured scale (p's baseline_step_ms and model_baseline_ms set).
Replayed Calibrated(const StepModel& m, const Edit& e, const Prediction& p);
// p's parts (critical_path) and bound_by from a replay.
void FillParts(const Replayed& r, Prediction* p);
// p predicted from one replay: the point, with low = high = it.
void SetPoint(const Replayed& r, Prediction* p);
// Widens [low, high] to the replay's tolerance and sets the speed-up.
void Finish(Prediction* p);

}  // namespace stepdoctor::whatif_replay
