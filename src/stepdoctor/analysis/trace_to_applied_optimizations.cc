#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

#include <fmt/format.h>

#include <string_view>

namespace stepdoctor {
namespace {

enum class Applied : uint8_t { kNone, kGraphLaunch, kCapture, kCompiled, kXla, kLoaderWorkers, kPrefetch };

struct NamePattern {
  std::string_view text;
  bool prefix;  // true: the name starts with it; false: contains it
  Applied what;
};

// What each optimisation leaves in a trace, by event name (host side).
constexpr NamePattern kPatterns[] = {
    {"cudaGraphLaunch", true, Applied::kGraphLaunch},
    {"hipGraphLaunch", true, Applied::kGraphLaunch},
    {"cuGraphLaunch", true, Applied::kGraphLaunch},
    {"cudaStreamBeginCapture", true, Applied::kCapture},
    {"hipStreamBeginCapture", true, Applied::kCapture},
    {"cudaStreamGetCaptureInfo", true, Applied::kCapture},
    {"hipStreamGetCaptureInfo", true, Applied::kCapture},
    {"cudaGraphInstantiate", true, Applied::kCapture},
    {"hipGraphInstantiate", true, Applied::kCapture},
    {"CompiledFunction", false, Applied::kCompiled},
    {"Torch-Compiled Region", false, Applied::kCompiled},
    {"CompiledFxGraph", false, Applied::kCompiled},
    {"torch/_dynamo", false, Applied::kCompiled},
    {"XlaLaunch", false, Applied::kXla},
    {"_XlaRun", false, Applied::kXla},
    {"XlaCompile", false, Applied::kXla},
    {"_MultiProcessingDataLoaderIter", false, Applied::kLoaderWorkers},
    {"::Prefetch", false, Applied::kPrefetch},
    {"PrefetchDataset", false, Applied::kPrefetch},
};

Applied Classify(std::string_view n) {
  for (const NamePattern& p : kPatterns)
    if (p.prefix ? n.substr(0, p.text.size()) == p.text : n.find(p.text) != std::string_view::npos) return p.what;
  return Applied::kNone;
}

}  // namespace

std::vector<std::string> AppliedOptimizations::Labels() const {
  std::vector<std::string> out;
  if (graph_launches > 0)
    out.push_back(fmt::format("CUDA/HIP graph replay ({} launch{})", graph_launches, graph_launches == 1 ? "" : "es"));
  if (capture_calls > 0) out.push_back("CUDA/HIP graph capture");
  if (compiled) out.push_back("torch.compile");
  if (xla) out.push_back("XLA");
  if (loader_workers) out.push_back("DataLoader worker processes");
  if (prefetch) out.push_back("tf.data prefetch");
  return out;
}

AppliedOptimizations TraceToAppliedOptimizations(const Trace& trace, WorkerId worker) {
  AppliedOptimizations a;
  std::vector<int8_t> memo(trace.strings.size(), -1);  // Applied per name id, classified once
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    if (t.kind == TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      uint32_t id = t.ev.name[i].v;
      if (id >= memo.size()) continue;
      if (memo[id] < 0) memo[id] = int8_t(Classify(trace.str(t.ev.name[i])));
      switch (Applied(memo[id])) {
        case Applied::kGraphLaunch: ++a.graph_launches; break;
        case Applied::kCapture: ++a.capture_calls; break;
        case Applied::kCompiled: a.compiled = true; break;
        case Applied::kXla: a.xla = true; break;
        case Applied::kLoaderWorkers: a.loader_workers = true; break;
        case Applied::kPrefetch: a.prefetch = true; break;
        case Applied::kNone: break;
      }
    }
  }
  // JAX programs are jit-compiled by XLA whatever their names say.
  if (trace.framework == Framework::kJax) a.xla = true;
  return a;
}

}  // namespace stepdoctor
