// Trace + StepModel -> CriticalPathSummary: for each step, the chain of work that sets its length,
// walked back from the step's end along the dependencies the model has:
//   - host order on the launching thread (the thread of the step markers, else the busiest one):
//     the innermost recorded event at each moment is what the host was doing;
//   - a host wait on the device (a synchronize call, a blocking copy) ends when the device work it
//     waited for ends: the path goes to the device operation that ended last within the wait;
//   - where the launching thread has nothing recorded, the path follows another host thread that
//     has (the thread that launches most); where none has, and the silence began while device work
//     ran and ends after that work ended, it is read as an untraced wait on that work;
//   - a device operation starts after the later of its launch (by correlation id) and the end of
//     the previous operation on its stream; where neither explains a start later than
//     kCrossStreamGapNs, the path takes the latest operation on another stream that ended in
//     between (an event wait between streams).
// Graph launches (cudaGraphLaunch, hipGraphLaunch) need nothing special: their kernels share the
// launch's correlation id, so the first one follows the launch and the rest follow stream order
// (or each other across streams). HIP runtime calls are read through the same runtime-call table
// as CUDA's (model/runtime_calls.h).
//
// The path is continuous from the step's end back to its start, so its length is the step's.
// Known limits: a thread that waits on another (PyTorch's main thread during backward, while the
// autograd thread launches) is credited with its enclosing event; device operations the steps
// did not launch or start are not on the model, so a wait on them reads as the host's wait.
#pragma once

#include <string>

#include "stepdoctor/analysis/step_model.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/critical_path.h"

namespace stepdoctor {

// A device operation starting this much later than both its launch and its stream's previous
// operation was held by something else: the path looks for work on another stream that ended
// in between.
inline constexpr int64_t kCrossStreamGapNs = 5'000;

enum class PathSegments : uint8_t {
  kAll,     // every step's segments (whatif --format json)
  kMedian,  // the median step's only (diagnose: the HTML lane)
};

// REQUIRED: `model` is TraceToStepModel(trace, worker, ...). Empty without steps, or where the
// model has no device work (CPU-only, device activity not recorded).
CriticalPathSummary TraceToCriticalPath(const Trace& trace, WorkerId worker, const StepModel& model, PathSegments keep);

// Why no path can be walked over `model`, or empty: where device work was recorded but none of it
// is linked to its launch (no correlation ids: a TF1 timeline), the walk could never leave the
// host and would call the whole step host time while the device works.
std::string NoCriticalPathReason(const StepModel& model);

// For a diagnosis: the model of `windows` built with device work captured, the median step's
// segments kept. REQUIRED: `windows` are TraceToSteps(trace, worker).
CriticalPathSummary TraceToReportCriticalPath(const Trace& trace, WorkerId worker, const StepWindows& windows);

}  // namespace stepdoctor
