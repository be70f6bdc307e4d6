#include "stepdoctor/analysis/tf_data_pipeline.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stepdoctor/analysis/interval_set.h"

namespace stepdoctor {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

int Depth(std::string_view n) {
  int d = 0;
  for (size_t at = n.find("::"); at != std::string_view::npos; at = n.find("::", at + 2)) ++d;
  return d;
}

// Parent iterator name: the name without its last "::" component.
std::string_view ParentOf(std::string_view n) {
  size_t at = n.rfind("::");
  return at == std::string_view::npos ? std::string_view() : n.substr(0, at);
}

struct StageEvents {
  std::vector<Interval> iv;  // sorted by start
  int64_t max_dur = 0;
};

// The stage's intervals overlapping [lo, hi), clipped to it.
IntervalSet Clip(const StageEvents& s, int64_t lo, int64_t hi, int64_t* count) {
  std::vector<Interval> out;
  auto it = std::lower_bound(s.iv.begin(), s.iv.end(), lo - s.max_dur,
                             [](const Interval& a, int64_t v) { return a.start < v; });
  for (; it != s.iv.end() && it->start < hi; ++it) {
    if (it->end <= lo) continue;
    out.push_back({std::max(lo, it->start), std::min(hi, it->end)});
    ++*count;
  }
  return MakeIntervalSet(std::move(out));
}

}  // namespace

const char* TfDataStageKindName(TfDataStageKind k) {
  switch (k) {
    case TfDataStageKind::kSource: return "source (reads the data)";
    case TfDataStageKind::kParallelizable: return "transformation with a parallel version not in use";
    case TfDataStageKind::kParallel: return "parallel transformation";
    case TfDataStageKind::kSequential: return "transformation without a parallel version";
    case TfDataStageKind::kPrefetch: return "prefetch buffer";
    case TfDataStageKind::kCache: return "cache";
    case TfDataStageKind::kOther: return "pipeline root";
  }
  return "?";
}

std::string_view TfDataOpOf(std::string_view n) {
  size_t at = n.rfind("::");
  std::string_view op = at == std::string_view::npos ? n : n.substr(at + 2);
  if (size_t b = op.find('['); b != std::string_view::npos) op = op.substr(0, b);
  return op;
}

TfDataStageKind ClassifyTfDataOp(std::string_view op) {
  // Strip version suffixes: ParallelMapV2, ParallelInterleaveV4, PrefetchV2 ...
  std::string_view base = op;
  while (base.size() > 2 && base[base.size() - 2] == 'V' && base.back() >= '0' && base.back() <= '9')
    base.remove_suffix(2);
  if (StartsWith(base, "Parallel") || base == "MapAndBatch" || base == "ExperimentalMapAndBatch")
    return TfDataStageKind::kParallel;
  if (base == "Map" || base == "Interleave" || base == "FlatMap" || base == "LegacyParallelInterleave")
    return TfDataStageKind::kParallelizable;
  if (base == "Prefetch") return TfDataStageKind::kPrefetch;
  if (base == "Cache" || base == "MemoryCache" || base == "MemoryCacheImpl" || base == "CacheDataset")
    return TfDataStageKind::kCache;
  for (std::string_view s : {"TFRecord", "TextLine", "FixedLengthRecord", "Generator", "TensorSlice", "FromTensor",
                             "Tensor", "Range", "SSTable", "Csv", "SqlDataset", "Snapshot", "Load", "DataService",
                             "ListFiles", "Files"})
    if (base == s) return TfDataStageKind::kSource;
  if (base == "Model" || base == "MaxIntraOpParallelism" || base == "PrivateThreadPool" || base == "Options")
    return TfDataStageKind::kOther;
  return TfDataStageKind::kSequential;
}

TfDataPipeline TraceToTfDataPipeline(const Trace& trace, WorkerId worker, int step_count, double step_ms,
                                     double input_wait_ms) {
  TfDataPipeline out;
  std::map<std::string_view, StageEvents> stages;
  for (const auto& t : trace.timelines) {
    if ((worker.valid() && t.worker != worker) || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      std::string_view n = trace.str(t.ev.name[i]);
      if (!StartsWith(n, "Iterator::") || t.ev.dur_ns[i] <= 0) continue;
      StageEvents& s = stages[n];
      s.iv.push_back({t.ev.start_ns[i], t.ev.start_ns[i] + t.ev.dur_ns[i]});
      s.max_dur = std::max(s.max_dur, t.ev.dur_ns[i]);
    }
  }
  if (stages.empty()) return out;
  out.present = true;
  for (auto& [n, s] : stages)
    std::sort(s.iv.begin(), s.iv.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });

  // The root: the shallowest iterator (most calls at equal depth).
  std::string_view root;
  for (const auto& [n, s] : stages)
    if (root.empty() || Depth(n) < Depth(root) || (Depth(n) == Depth(root) && s.iv.size() > stages[root].iv.size()))
      root = n;
  out.root = std::string(root);
  const StageEvents& roots = stages[root];
  out.get_next_calls = static_cast<int64_t>(roots.iv.size());

  // Stages in tree order (parents before children), so each clips to its parent's time.
  std::vector<std::string_view> order;
  for (const auto& [n, s] : stages)
    if (StartsWith(n, root)) order.push_back(n);
  std::sort(order.begin(), order.end(), [](std::string_view a, std::string_view b) {
    return Depth(a) != Depth(b) ? Depth(a) < Depth(b) : a < b;
  });
  std::map<std::string_view, double> self_ns;
  std::map<std::string_view, int64_t> count;
  for (const Interval& call : roots.iv) {
    if (call.end - call.start < kTfDataSlowGetNextNs) continue;
    ++out.slow_calls;
    out.slow_call_ms += (call.end - call.start) / 1e6;
    std::map<std::string_view, IntervalSet> active;  // each stage's blocking time in this call
    for (std::string_view n : order) {
      int64_t c = 0;
      IntervalSet mine = Clip(stages[n], call.start, call.end, &c);
      if (n != root) {
        auto p = active.find(ParentOf(n));
        if (p == active.end()) continue;  // its parent never ran in this call: it blocked nothing
        mine = Intersect(mine, p->second);
      }
      count[n] += c;
      active[n] = std::move(mine);
    }
    for (auto& [n, set] : active) {
      IntervalSet children;
      for (auto& [m, cs] : active)
        if (ParentOf(m) == n) children = Union(children, cs);
      self_ns[n] += TotalLength(Subtract(set, children));
    }
  }

  double total = 0;
  for (auto& [n, ns] : self_ns) total += ns;
  for (auto& [n, ns] : self_ns) {
    TfDataStage s;
    s.iterator = std::string(n);
    s.op = std::string(TfDataOpOf(n));
    s.kind = ClassifyTfDataOp(s.op);
    s.self_ms = ns / 1e6;
    s.share_pct = total > 0 ? 100.0 * ns / total : 0;
    s.events = count[n];
    s.per_element_ms = s.events > 0 ? s.self_ms / s.events : 0;
    out.stages.push_back(std::move(s));
  }
  std::stable_sort(out.stages.begin(), out.stages.end(),
                   [](const TfDataStage& a, const TfDataStage& b) { return a.self_ms > b.self_ms; });
  // The bottleneck: the stage with the most blocking self time, skipping the root (whose self
  // time is the pipeline's own overhead) unless nothing else took time.
  for (size_t i = 0; i < out.stages.size(); ++i)
    if (out.stages[i].kind != TfDataStageKind::kOther && out.stages[i].self_ms > 0) {
      out.bottleneck = static_cast<int>(i);
      break;
    }
  if (out.bottleneck >= 0 && step_count > 0 && step_ms > 0) {
    const TfDataStage& b = out.stages[out.bottleneck];
    // Elements the stage produces per step, and how many must be in flight so that producing
    // them fits in the part of the step that is not spent waiting for them.
    auto all = stages.find(b.iterator);
    out.elements_per_step = all == stages.end() ? 0 : double(all->second.iv.size()) / step_count;
    double budget_ms = std::max(step_ms - input_wait_ms, 0.1 * step_ms);
    if (b.per_element_ms > 0 && out.elements_per_step > 0)
      out.parallelism_needed = std::max(1, int(std::ceil(out.elements_per_step * b.per_element_ms / budget_ms)));
  }
  return out;
}

}  // namespace stepdoctor
