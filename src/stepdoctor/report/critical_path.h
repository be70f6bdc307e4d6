// The critical path of each step: the chain of host work, launches, device work and waits that
// sets the step's length, walked back from its end (analysis/trace_to_critical_path). Printed by
// the text, JSON and HTML renderers of `diagnose` and by `whatif --format json`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepdoctor {

enum class PathKind : uint8_t {
  kHost,    // the host's own work on the launching thread (operators, Python, untraced gaps)
  kLaunch,  // a runtime call that launched device work, and its latency until that work started
  kKernel,  // a compute or communication kernel
  kCopy,    // a memory copy or memset on a stream
  kWait,    // the host waiting on the device past its work's end, or a stream waiting on another
  kCount_
};
inline constexpr int kPathKindCount = int(PathKind::kCount_);
const char* PathKindName(PathKind k);  // "host", "launch", "kernel", "copy", "wait"
// The inverse of PathKindName; nullopt for a name it never gives.
std::optional<PathKind> PathKindFromName(std::string_view name);

// A run of the path of one kind (and, on the device, one stream): host work between launches,
// kernels back to back on a stream, ...
struct PathSegment {
  double start_ms = 0;  // from the start of the report's window (the first step)
  double dur_ms = 0;
  PathKind kind = PathKind::kHost;
  std::string name;     // its longest part's event name; "(untraced)": host time with nothing recorded
  int stream = -1;      // the device stream (index among the worker's) for kernels and copies
  int64_t parts = 1;    // events (or gaps) in the run
};

struct PathContributor {  // one name on the path, its time summed over the step
  std::string name;
  PathKind kind = PathKind::kHost;
  double ms = 0;
  int64_t count = 0;      // events (or gaps) of that name on the path
};

struct StepCriticalPath {
  int64_t step = 0;        // the step's number
  double start_ms = 0;     // from the window's start
  double step_ms = 0;
  double path_ms = 0;      // the segments' total: equals step_ms but for rounding
  std::array<double, kPathKindCount> kind_ms{};  // path time by PathKind
  std::vector<PathContributor> top;              // largest first, at most kPathTopContributors
  std::vector<PathSegment> segments;             // in time order
};

// Contributors kept per step.
inline constexpr size_t kPathTopContributors = 10;

struct CriticalPathSummary {
  std::vector<StepCriticalPath> steps;  // every step; `segments` only where kept (see the analysis)
  int median_index = -1;                // the step of median duration (index into steps)
};

}  // namespace stepdoctor
