#include "stepdoctor/analysis/trace_to_whatif.h"

#include <algorithm>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_critical_path.h"
#include "stepdoctor/analysis/trace_to_steps.h"

namespace stepdoctor {
namespace {

// Finding id -> the fix its advice describes.
struct FindingFix {
  std::string_view finding;
  const char* fix;
};
constexpr FindingFix kFindingFixes[] = {
    {"host_bound", "launch"},        {"input_bound", "input"},       {"kernel_launch_bound", "launch"},
    {"low_precision", "amp"},        {"periodic_stall", "stalls"},   {"step_time_outliers", "stalls"},
    {"collective_bound", "overlap"},
};

}  // namespace

StepModel TraceToPrimaryStepModel(const Trace& trace, const WhatIfOptions& opts) {
  const WorkerId worker = PrimaryWorker(trace);
  if (!worker.valid()) return {};
  const StepWindows windows = TraceToSteps(trace, worker);
  StepModel m = TraceToStepModel(trace, worker, windows, TraceToDeviceEvidence(trace, worker).coverage);
  const AppliedOptimizations applied = TraceToAppliedOptimizations(trace, worker);
  m.loader_workers = applied.loader_workers || applied.prefetch;
  m.compiled = applied.any_compilation();
  m.cores = opts.cores;
  if (m.cores <= 0 && !trace.counters.empty())
    if (auto res = ComputeResourceSignals(trace)) m.cores = res->cores.value_or(0);
  return m;
}

WhatIfReport TraceToWhatIf(const Trace& trace, const std::vector<FixSpec>& fixes, const WhatIfOptions& opts) {
  WhatIfReport r;
  r.inputs = trace.sources;
  r.format = trace.format;
  const StepModel m = TraceToPrimaryStepModel(trace, opts);
  r.steps = int(m.steps.size());
  r.cores = m.cores;
  for (const FixSpec& f : fixes) r.predictions.push_back(PredictFix(m, f, opts));
  r.critical_path = TraceToCriticalPath(trace, PrimaryWorker(trace), m, PathSegments::kAll);
  if (!m.steps.empty() && !m.cpu_only && !m.device_missing && !m.device.empty() && m.ops_with_launch == 0)
    r.notes.push_back("no device work is linked to its launch by correlation id: device work follows the host's "
                      "timing, so predictions that move host work are less certain");
  return r;
}

const char* FixForFinding(std::string_view id) {
  for (const auto& f : kFindingFixes)
    if (f.finding == id) return f.fix;
  return nullptr;
}

void AttachPredictions(const StepModel& model, const WhatIfOptions& opts, std::vector<Finding>* findings) {
  if (model.steps.empty()) return;
  for (Finding& f : *findings) {
    const char* fix = f.whatif_fix.empty() ? FixForFinding(f.id) : f.whatif_fix.c_str();
    if (!fix || f.prediction) continue;  // a rule that set one said why its fix is not replayed
    auto spec = ParseFix(fix);
    if (!spec.ok()) continue;
    f.prediction = PredictFix(model, *spec, opts);
    // The finding's upper bound is the step with its cause gone for free: no prediction beats it.
    Prediction& p = *f.prediction;
    if (p.predicted && f.gain_upper_bound > 1 && p.speedup > f.gain_upper_bound) {
      const double floor_ms = p.baseline_step_ms / f.gain_upper_bound;
      p.predicted_median_ms *= floor_ms / p.predicted_step_ms;
      p.predicted_step_ms = floor_ms;
      p.low_ms = std::max(p.low_ms, floor_ms);
      p.high_ms = std::max(p.high_ms, floor_ms);
      p.speedup = f.gain_upper_bound;
      p.assumptions.push_back("held at the finding's upper bound: the replay predicted more than removing the cause "
                              "entirely could give");
    }
  }
}

}  // namespace stepdoctor
