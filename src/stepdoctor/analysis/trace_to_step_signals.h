// Trace + step windows -> StepSignals: the host-view step-time breakdown and the kernel,
// operator and precision figures the rules read.
//
// Each instant of a step goes to exactly one category, by priority:
//   with a device:  device_compute > collectives > memcpy > input > kernel_launch > host_compute,
//                   and what is left is `other` (idle, or work we cannot attribute). So input
//                   wait counts only while the device has nothing to do: the exposed wait.
//   CPU only:       input > device_compute (top-level operators) > collectives (host
//                   collectives: waiting for other ranks) > host_compute (tiny top-level
//                   operators, and the time between operators: Python/framework).
#pragma once

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// A top-level operator shorter than this is dominated by dispatch cost: host overhead.
inline constexpr int64_t kTinyOpNs = 10'000;

StepSignals TraceToStepSignals(const Trace& trace, WorkerId worker, const StepWindows& steps);

}  // namespace stepdoctor
