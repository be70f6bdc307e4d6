#include "stepdoctor/analysis/cold_window.h"

#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/verdict.h"

namespace stepdoctor {

void HoldBackColdWindowFindings(std::vector<Finding>* findings) {
  // One cold first pass: what bounds it is partly first-call setup (autotuning, code loading)
  // that a steady step does not pay, so no finding about the step is high, and no fix is
  // predicted from it.
  for (Finding& f : *findings) {
    if (f.id == "cold_start" || BottleneckOf(f) == Bottleneck::kUnknown) continue;
    f.severity = std::min(f.severity, FindingSeverity::kModerate);
    f.fix.summary = "This window is one cold first pass: profile steady-state steps before acting on it. " + f.fix.summary;
    if (const char* fix = FixForFinding(f.id); fix && !f.prediction) {
      Prediction none;
      none.fix = fix;
      none.why_not = "the window is one cold first pass (one-off start-up included): there is no steady step to "
                     "predict from";
      f.prediction = none;
    }
  }
}

}  // namespace stepdoctor
