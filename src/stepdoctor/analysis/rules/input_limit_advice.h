// Where the dataset's storage was probed (diagnose --data), the input findings (input_bound,
// tfdata_bottleneck_stage) say whether storage or the CPU is the limit: the probe's figures
// against the job's reads as evidence, and the fix that follows the limit.
#pragma once

#include "stepdoctor/analysis/input_limit.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor::rules {

enum class InputLimit { kUnknown, kStorage, kCpu };
// kStorage when the storage delivers under kStorageHeadroomFactor x what steps without input
// wait read; kCpu at or above; kUnknown when the two cannot be compared.
InputLimit InputLimitOf(const InputLimitSignals& s);

// Appends the figures and replaces the fix; does nothing without sig.input_limit.
void AddInputLimit(const Signals& sig, Finding* f);

}  // namespace stepdoctor::rules
