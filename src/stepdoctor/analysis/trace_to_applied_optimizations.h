// Trace -> the optimisations the trace shows already in use (graph replay, compiled regions,
// XLA, DataLoader workers, tf.data prefetch), so no rule advises what the job already does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct AppliedOptimizations {
  int64_t graph_launches = 0;   // cudaGraphLaunch / hipGraphLaunch calls: CUDA/HIP graph replay
  int64_t capture_calls = 0;    // stream capture calls: a graph-capture pass
  bool compiled = false;        // torch.compile regions (CompiledFunction, Torch-Compiled Region)
  bool xla = false;             // XLA clusters or jit-compiled programs
  bool loader_workers = false;  // a multi-process DataLoader
  bool prefetch = false;        // tf.data prefetch in the input pipeline

  bool graphs() const { return graph_launches > 0; }
  bool any_compilation() const { return graphs() || compiled || xla; }
  // Human labels, in a fixed order: "CUDA/HIP graph replay (1 launch)", "torch.compile", ...
  std::vector<std::string> Labels() const;
};

AppliedOptimizations TraceToAppliedOptimizations(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
