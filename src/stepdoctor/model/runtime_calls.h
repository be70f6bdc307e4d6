// What a host runtime or driver call (cudaLaunchKernel, cuLaunchKernel, hipMemcpyWithStream,
// cudaStreamSynchronize, ...) makes the host do: the one classification the importers (a call
// with no category), the device evidence, the step breakdown (trace_to_step_signals) and the step
// model the what-if replays (step_model) all read.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "stepdoctor/core/string_pool.h"

namespace stepdoctor {

// One runtime call longer than this is one-off start-up (lazy module loading, cudaFree at
// context creation, stream and event creation), not per-step launch overhead.
inline constexpr int64_t kOneOffRuntimeNs = 50'000'000;

// An asynchronous copy call (cudaMemcpyAsync, cuMemcpyHtoDAsync) this long blocked the host: an
// enqueue takes microseconds; a pageable copy is staged by the host, and a copy may wait on the
// stream's earlier work.
inline constexpr int64_t kBlockingAsyncCopyNs = 1'000'000;

enum class RuntimeCallRole : uint8_t {
  kLaunch,        // enqueues work and returns (launches, async copies, event records, queries)
  kBlockingCopy,  // a copy the host waits for (cudaMemcpy, hipMemcpyWithStream, a long copy call)
  kSync,          // the host waits on the device (a *Synchronize, or a long call recurring each step)
  kStartup,       // one long call that does not recur, or a load of device code (cuModuleLoadData,
                  // hipModuleLoadData, cuLibraryLoadData): start-up, not a per-step cost
  kAllocator,     // device or pinned memory allocated or freed by the driver (cudaMalloc, cudaFree,
                  // hipFree, cuMemAlloc, cudaHostAlloc; not the stream-ordered *Async ones): host work
                  // the caching allocator exists to avoid, and a free waits for the device
  kQuery,         // only asks (cudaGetDeviceCount, cudaDriverGetVersion, cudaPeekAtLastError,
                  // cudaStreamIsCapturing, cudaEventQuery): no device work, no launch cost
};

// REQUIRED: `recurs_each_step` says whether calls of this name over kOneOffRuntimeNs occur in at
// least half the steps (and twice): such a call is the host blocked on the device every step.
RuntimeCallRole RuntimeCallRoleOf(std::string_view name, int64_t dur_ns, bool recurs_each_step);

// What a call's name alone says of its role (the rest is its duration and recurrence): worked
// out once per distinct name, so classifying millions of calls compares no strings.
struct RuntimeCallName {
  bool sync = false;          // a *Synchronize
  bool copy = false;          // a Memcpy
  bool blocking_copy = false; // a synchronous copy (no Async, or WithStream)
  bool loads_code = false;    // ModuleLoad / LibraryLoad
  bool alloc = false;         // a driver allocation or free (not the stream-ordered *Async ones)
  bool query = false;         // Get, Peek, Version, IsCapturing, Query
};
RuntimeCallName RuntimeCallNameOf(std::string_view name);
RuntimeCallRole RuntimeCallRoleOf(const RuntimeCallName& name, int64_t dur_ns, bool recurs_each_step);

// RuntimeCallNameOf memoised by interned name: one per analysis pass over a trace's calls.
class RuntimeCallNames {
 public:
  explicit RuntimeCallNames(const StringPool& strings) : strings_(strings) {}
  const RuntimeCallName& Of(StringId name);
  RuntimeCallRole Role(StringId name, int64_t dur_ns, bool recurs_each_step) {
    return RuntimeCallRoleOf(Of(name), dur_ns, recurs_each_step);
  }

 private:
  const StringPool& strings_;
  std::vector<uint8_t> known_;  // by StringId: 1 once names_[id] is filled
  std::vector<RuntimeCallName> names_;
};

// Whether `long_calls` calls of one name over kOneOffRuntimeNs among `steps` steps recur each step:
// at least twice, and in at least half the steps.
inline bool RecursEachStep(int64_t long_calls, int64_t steps) { return long_calls >= 2 && 2 * long_calls >= steps; }

// Whether a runtime call launches a kernel by its name (cudaLaunchKernel, hipLaunchKernel,
// cuLaunchKernel, ...). Calls of other names launch one where their correlation id reaches a kernel.
bool IsKernelLaunchName(std::string_view name);

// Whether a call hands the device work to do: launches (kernels, graphs, modules), copies and
// memsets. A window whose runtime calls include none of these launched nothing.
bool IsDeviceWorkCallName(std::string_view name);

// Whether a name is an accelerator runtime or driver API call by its spelling: CUDA runtime
// (cudaX), driver (cuX), HIP (hipX), HSA (hsa_x), with X an upper-case letter. Traces written
// without categories (eBPF or LD_PRELOAD tracers) name their events so.
bool IsAcceleratorApiName(std::string_view name);

}  // namespace stepdoctor
