#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {
bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
}  // namespace

RuntimeCallRole RuntimeCallRoleOf(std::string_view n, int64_t dur_ns, bool recurs_each_step) {
  if (Contains(n, "Synchronize")) return RuntimeCallRole::kSync;
  const bool copy = Contains(n, "Memcpy");
  if (copy && (!Contains(n, "Async") || Contains(n, "WithStream"))) return RuntimeCallRole::kBlockingCopy;
  // An asynchronous copy call that holds the host this long did not just enqueue: it copied
  // through a staging buffer (pageable memory) or waited for the stream's queued work.
  if (copy && dur_ns >= kBlockingAsyncCopyNs) return RuntimeCallRole::kBlockingCopy;
  // Loading a module or library of device code (cuModuleLoadData, hipModuleLoadData,
  // cuLibraryLoadData): start-up however short, unless it recurs each step (code built per step).
  if ((Contains(n, "ModuleLoad") || Contains(n, "LibraryLoad")) && !recurs_each_step) return RuntimeCallRole::kStartup;
  // Driver allocations and frees, short or recurring: memory management, not a launch. (One
  // long one is start-up: cudaFree(0) creating the context.)
  const bool alloc = !Contains(n, "Async") && (Contains(n, "Malloc") || Contains(n, "Free") || Contains(n, "MemAlloc") ||
                                               Contains(n, "HostAlloc") || Contains(n, "MemFree"));
  if (alloc && (dur_ns <= kOneOffRuntimeNs || recurs_each_step)) return RuntimeCallRole::kAllocator;
  if (dur_ns <= kOneOffRuntimeNs) {
    const bool query = Contains(n, "Get") || Contains(n, "Peek") || Contains(n, "Version") ||
                       Contains(n, "IsCapturing") || Contains(n, "Query");
    return query ? RuntimeCallRole::kQuery : RuntimeCallRole::kLaunch;
  }
  // A copy call that long blocked (pageable memory, or waiting on queued kernels).
  if (copy) return RuntimeCallRole::kBlockingCopy;
  // A long call that recurs step after step is the host blocked on the device (a cudaFree or
  // allocation that synchronises), not start-up.
  return recurs_each_step ? RuntimeCallRole::kSync : RuntimeCallRole::kStartup;
}

bool IsKernelLaunchName(std::string_view n) { return Contains(n, "LaunchKernel"); }

bool IsDeviceWorkCallName(std::string_view n) {
  return Contains(n, "Launch") || Contains(n, "Memcpy") || Contains(n, "Memset") || Contains(n, "memcpy");
}

bool IsAcceleratorApiName(std::string_view n) {
  auto upper_after = [&](std::string_view p) {
    return n.size() > p.size() && n.substr(0, p.size()) == p && n[p.size()] >= 'A' && n[p.size()] <= 'Z';
  };
  return upper_after("cuda") || upper_after("cu") || upper_after("hip") || (n.size() > 4 && n.substr(0, 4) == "hsa_");
}

}  // namespace stepdoctor
