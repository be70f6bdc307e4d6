// Trace -> the host operators that compute on the CPU inside a device job's step: top-level
// framework operators of at least kCpuOpMinNs that launch no device work (aten::normal_ filling a
// CPU tensor, a CPU-side augmentation, a NumPy conversion). They are work, not launch or dispatch
// overhead: compiling the step or capturing a graph does not remove them; moving them to the
// device or into the input pipeline does. Operators nested in one that can wait on the device (a
// .item() inside a wrapper) are waits, not its work: their time is left out. The step breakdown (trace_to_step_signals) and the step
// model (step_model) both read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// A top-level host operator this long, with no launch inside, is CPU compute.
inline constexpr int64_t kCpuOpMinNs = 1'000'000;

struct HostCpuOps {
  IntervalSet time;              // their spans
  std::vector<std::string> top;  // their names, the longest total first (at most 3)
  bool judged_by_name = false;   // no launch call recorded: told apart by duration and name only
  // Where the device's activity is not recorded: the spans of operators that can wait on the
  // device (the outermost of nested ones), and their names by total time (at most 3).
  IntervalSet device_reads;
  std::vector<std::string> read_top;
};

// Whether an operator of this name can hold the host waiting on the device (a copy to or from
// it, a read of a device value, an explicit wait).
bool MayWaitOnDeviceOpName(std::string_view name);

// REQUIRED: a worker of a device job (on a CPU-only trace every operator is compute).
// `device_recorded`: whether the trace holds the worker's device activity.
HostCpuOps TraceToHostCpuOps(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi, bool device_recorded);

}  // namespace stepdoctor
