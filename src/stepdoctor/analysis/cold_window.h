// One cold first pass (a whole-window trace or a single run dominated by one-off start-up): what
// bounds it is partly first-call setup (autotuning, code loading) that a steady step does not pay.
#pragma once

#include <vector>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

// No finding about the step stays high, each fix's summary says to profile steady steps first,
// and no fix is predicted from the window (cold_start itself, and findings naming no bottleneck,
// are left as they are).
void HoldBackColdWindowFindings(std::vector<Finding>* findings);

}  // namespace stepdoctor
