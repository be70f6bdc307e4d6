// What a host runtime call (cudaLaunchKernel, hipMemcpyWithStream, cudaStreamSynchronize, ...)
// makes the host do: the one classification the step breakdown (trace_to_step_signals) and the
// step model the what-if replays (step_model) both read.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepdoctor {

// One runtime call longer than this is one-off start-up (lazy module loading, cudaFree at
// context creation, stream and event creation), not per-step launch overhead.
inline constexpr int64_t kOneOffRuntimeNs = 50'000'000;

enum class RuntimeCallRole : uint8_t {
  kLaunch,        // enqueues work and returns (launches, async copies, event records, queries)
  kBlockingCopy,  // a copy the host waits for (cudaMemcpy, hipMemcpyWithStream, a long copy call)
  kSync,          // the host waits on the device (a *Synchronize, or a long call recurring each step)
  kStartup,       // one long call that does not recur: start-up, not a per-step cost
};

// REQUIRED: `recurs_each_step` says whether calls of this name over kOneOffRuntimeNs occur in at
// least half the steps (and twice): such a call is the host blocked on the device every step.
RuntimeCallRole RuntimeCallRoleOf(std::string_view name, int64_t dur_ns, bool recurs_each_step);

// Whether a runtime call launches a kernel by its name (cudaLaunchKernel, hipLaunchKernel,
// cuLaunchKernel, ...). Calls of other names launch one where their correlation id reaches a kernel.
bool IsKernelLaunchName(std::string_view name);

}  // namespace stepdoctor
