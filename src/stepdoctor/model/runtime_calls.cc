#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {
bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
}  // namespace

RuntimeCallName RuntimeCallNameOf(std::string_view n) {
  RuntimeCallName c;
  c.sync = Contains(n, "Synchronize");
  c.copy = Contains(n, "Memcpy");
  const bool async = Contains(n, "Async");
  c.blocking_copy = c.copy && (!async || Contains(n, "WithStream"));
  // Loading a module or library of device code (cuModuleLoadData, hipModuleLoadData,
  // cuLibraryLoadData).
  c.loads_code = Contains(n, "ModuleLoad") || Contains(n, "LibraryLoad");
  c.alloc = !async && (Contains(n, "Malloc") || Contains(n, "Free") || Contains(n, "MemAlloc") ||
                       Contains(n, "HostAlloc") || Contains(n, "MemFree"));
  c.query = Contains(n, "Get") || Contains(n, "Peek") || Contains(n, "Version") || Contains(n, "IsCapturing") ||
            Contains(n, "Query");
  return c;
}

RuntimeCallRole RuntimeCallRoleOf(const RuntimeCallName& c, int64_t dur_ns, bool recurs_each_step) {
  if (c.sync) return RuntimeCallRole::kSync;
  if (c.blocking_copy) return RuntimeCallRole::kBlockingCopy;
  // An asynchronous copy call that holds the host this long did not just enqueue: it copied
  // through a staging buffer (pageable memory) or waited for the stream's queued work.
  if (c.copy && dur_ns >= kBlockingAsyncCopyNs) return RuntimeCallRole::kBlockingCopy;
  // Device code loaded: start-up however short, unless it recurs each step (code built per step).
  if (c.loads_code && !recurs_each_step) return RuntimeCallRole::kStartup;
  // Driver allocations and frees, short or recurring: memory management, not a launch. (One
  // long one is start-up: cudaFree(0) creating the context.)
  if (c.alloc && (dur_ns <= kOneOffRuntimeNs || recurs_each_step)) return RuntimeCallRole::kAllocator;
  if (dur_ns <= kOneOffRuntimeNs) return c.query ? RuntimeCallRole::kQuery : RuntimeCallRole::kLaunch;
  // A copy call that long blocked (pageable memory, or waiting on queued kernels).
  if (c.copy) return RuntimeCallRole::kBlockingCopy;
  // A long call that recurs step after step is the host blocked on the device (a cudaFree or
  // allocation that synchronises), not start-up.
  return recurs_each_step ? RuntimeCallRole::kSync : RuntimeCallRole::kStartup;
}

RuntimeCallRole RuntimeCallRoleOf(std::string_view n, int64_t dur_ns, bool recurs_each_step) {
  return RuntimeCallRoleOf(RuntimeCallNameOf(n), dur_ns, recurs_each_step);
}

const RuntimeCallName& RuntimeCallNames::Of(StringId name) {
  if (name.v >= known_.size()) {
    known_.resize(strings_.size(), 0);
    names_.resize(strings_.size());
  }
  if (!known_[name.v]) {
    names_[name.v] = RuntimeCallNameOf(strings_.Get(name));
    known_[name.v] = 1;
  }
  return names_[name.v];
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
