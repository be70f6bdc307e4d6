#include "stepdoctor/analysis/trace_to_outlier_steps.h"

#include <algorithm>
#include <unordered_map>

namespace stepdoctor {
namespace {

// An optimizer applying gradients: PyTorch's Optimizer.step#<class>.step range, TensorFlow's
// ResourceApplyAdam / ResourceApplyGradientDescent / ResourceApplyKerasMomentum ... ops.
bool IsOptimizerUpdateName(std::string_view n) {
  for (std::string_view p : {std::string_view("Optimizer.step#"), std::string_view("ResourceApply")})
    if (n.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace

std::vector<SlowOnlyEvent> TraceToSlowOnlyEvents(const Trace& trace, WorkerId worker, const StepWindows& windows,
                                                 const std::vector<size_t>& slow) {
  const std::vector<StepWindow>& steps = windows.steps;
  if (slow.empty() || slow.size() >= steps.size()) return {};
  std::vector<bool> is_slow(steps.size(), false);
  for (size_t k : slow)
    if (k < steps.size()) is_slow[k] = true;
  struct Seen {
    int64_t ns = 0, count = 0;
    std::vector<size_t> steps;  // slow steps holding it
    bool in_other = false;
  };
  std::unordered_map<StringId, Seen> by_name;
  StepAnnotationNames is_step(trace);
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      if (k != EventKind::kFrameworkOp && k != EventKind::kUserAnnotation && k != EventKind::kInputWait) continue;
      const int64_t s = t.ev.start_ns[i];
      // The step holding this event's start (steps are sorted and disjoint).
      auto it = std::upper_bound(steps.begin(), steps.end(), s, [](int64_t v, const StepWindow& w) { return v < w.start_ns; });
      if (it == steps.begin()) continue;
      const size_t w = size_t(std::prev(it) - steps.begin());
      if (s >= steps[w].end_ns || is_step(t.ev.name[i])) continue;
      Seen& seen = by_name[t.ev.name[i]];
      if (seen.in_other) continue;
      if (!is_slow[w]) {
        seen.in_other = true;
        continue;
      }
      seen.ns += t.ev.dur_ns[i];
      ++seen.count;
      if (seen.steps.empty() || seen.steps.back() != w) seen.steps.push_back(w);  // a line's events come in order
    }
  }
  std::vector<SlowOnlyEvent> out;
  for (auto& [name, seen] : by_name) {
    if (seen.in_other || seen.steps.empty()) continue;
    std::sort(seen.steps.begin(), seen.steps.end());  // several lines: each step once
    seen.steps.erase(std::unique(seen.steps.begin(), seen.steps.end()), seen.steps.end());
    SlowOnlyEvent e;
    e.name = std::string(trace.str(name));
    e.ms_per_step = double(seen.ns) / double(seen.steps.size()) / 1e6;
    e.count = seen.count;
    e.steps = std::move(seen.steps);
    e.optimizer_update = IsOptimizerUpdateName(e.name);
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const SlowOnlyEvent& a, const SlowOnlyEvent& b) {
    if (a.steps.size() != b.steps.size()) return a.steps.size() > b.steps.size();
    return a.ms_per_step != b.ms_per_step ? a.ms_per_step > b.ms_per_step : a.name < b.name;
  });
  return out;
}

}  // namespace stepdoctor
