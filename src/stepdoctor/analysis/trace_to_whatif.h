// Trace -> what-if predictions: the `whatif` command's report, and the prediction each finding
// of a diagnosis carries (the fix its advice describes, replayed on the step model).
#pragma once

#include <vector>

#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/whatif.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// The primary worker's steps as a StepModel, with what the trace shows in use and the core count
// (from `opts`, else from live samples in the trace).
StepModel TraceToPrimaryStepModel(const Trace& trace, const WhatIfOptions& opts);

WhatIfReport TraceToWhatIf(const Trace& trace, const std::vector<FixSpec>& fixes, const WhatIfOptions& opts);

// The fix a finding's advice describes ("input" for input_bound, ...), or nullptr where the
// replay has none for it.
const char* FixForFinding(std::string_view finding_id);
// Sets each finding's prediction where FixForFinding names a fix, unless its rule set one (a fix
// it knows the replay does not apply to, with why_not).
void AttachPredictions(const StepModel& model, const WhatIfOptions& opts, std::vector<Finding>* findings);

}  // namespace stepdoctor
