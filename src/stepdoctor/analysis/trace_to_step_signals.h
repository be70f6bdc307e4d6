// Trace + step windows -> StepSignals: the host-view step-time breakdown and the kernel,
// operator and precision figures the rules read.
//
// Each instant of a step goes to exactly one category, by priority:
//   with a device:  device_compute > collectives > memcpy (device copies, and blocking copy
//                   calls on the host) > other-by-cause (host syncs waiting on the device;
//                   device idle while its next work was already queued; one-off start-up
//                   runtime calls) > input > kernel_launch > host_compute, and what is left is
//                   `other` (idle, untraced host time, or work we cannot attribute). So input
//                   wait counts only while the device has nothing to do: the exposed wait.
//   device missing: the same priorities with no device lines: a host-side view only.
//   CPU only:       input > device_compute (top-level operators) > collectives (host
//                   collectives: waiting for other ranks) > host_compute (tiny top-level
//                   operators, the framework's bookkeeping ops, and the time between
//                   operators: Python/framework).
// The framework's bookkeeping ops (EventKind::kFrameworkOverhead: TF's executor NoOp, _Arg,
// Const ...) are host_compute on every trace, never operators: they do no math.
#pragma once

#include "stepdoctor/model/runtime_calls.h"  // kOneOffRuntimeNs
#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// A top-level operator shorter than this is dominated by dispatch cost: host overhead.
inline constexpr int64_t kTinyOpNs = 10'000;
// Device idle while the work that ends the gap had been queued this long before: the device
// was not waiting on the host (untraced device work, queue latency or a clock offset).
inline constexpr int64_t kQueuedSlackNs = 1'000'000;
// An operator's first call longer than kOneOffRuntimeNs and this many times the mean of its later
// calls is warm-up (autotuning, lazy loading), counted as one-off start-up.
inline constexpr double kSlowFirstCallFactor = 10.0;
// Calls of an operator this long that all come before its first shorter call, each over
// kSlowFirstCallFactor times the mean of at least kLeadingFastCalls shorter ones (and more shorter
// calls than slow), are its warm-up too: the first layers or shapes paying set-up (SlowFirstCalls).
inline constexpr int64_t kSlowLeadingCallNs = 1'000'000;
inline constexpr int64_t kLeadingFastCalls = 3;
// A TF1 GPU op called once, over kOneOffRuntimeNs, with the device busy under this share of its
// span, is set-up (SlowFirstCalls).
inline constexpr double kLoneOpDeviceShare = 0.1;
// In a window that shows start-up, an operator called once in a job that used an accelerator,
// whose own time is over kOneOffRuntimeNs and this many times the window's median operator call,
// set up a library or the device's context (SlowFirstCalls).
inline constexpr double kLoneSetupFactor = 100.0;
// The executor's _SOURCE op takes 7-52 us in TF1 timelines; the first run's, over this and
// kSlowFirstCallFactor times the window's median op, is that run setting up (SlowFirstCalls).
inline constexpr int64_t kSlowRunStartNs = 250'000;
// A gap inside a host annotation with no operator, Python frame or runtime call this long is
// untraced host time (Python the profiler did not record), not framework overhead.
inline constexpr int64_t kUntracedGapNs = 1'000'000;

StepSignals TraceToStepSignals(const Trace& trace, WorkerId worker, const StepWindows& steps);

// Per operator name, its first call in [lo, hi) where that call took over kOneOffRuntimeNs and
// over kSlowFirstCallFactor times the mean of the name's later calls, and its leading slow calls
// (kSlowLeadingCallNs): one-off start-up, in the breakdown and in the step model alike.
struct FirstCall {
  Interval iv;
  StringId name;  // the operator (a TF1 session's node, by its name argument)
};
std::vector<FirstCall> SlowFirstCalls(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi);

// A kernel launch call takes the host 2-20 us; one of kLazyLoadLaunchNs (50x that) or more that launches a
// kernel for the first time in the window, while the device runs nothing, is the driver loading
// that kernel's code (CUDA's lazy module loading, HIP's code-object load on first use): start-up.
// A long launch while the device is busy is a full launch queue (the device's pace), not this.
inline constexpr int64_t kLazyLoadLaunchNs = 1'000'000;
// The launch calls in [lo, hi) of `worker` that are such first-use loads (part of SlowFirstCalls).
std::vector<FirstCall> LazyLoadLaunches(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi);
// An allocator call of kSlowLeadingCallNs or more (cudaFree, cudaMalloc: the driver's, not the
// stream-ordered ones) inside the first call of the outermost operator around it, where none is inside that operator's
// later calls: the first call set something up that later calls reuse (a library handle created
// on first use, the caching allocator's first blocks). Part of SlowFirstCalls.
std::vector<FirstCall> SetupAllocationsInFirstCalls(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi);

}  // namespace stepdoctor
