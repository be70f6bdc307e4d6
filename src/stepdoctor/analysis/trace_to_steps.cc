#include "stepdoctor/analysis/trace_to_steps.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace stepdoctor {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Step annotations that are not EventKind::kStepMarker at import: Keras' train_function,
// SageMaker's Step:ModeKeys.TRAIN. Matched by name only where no marker exists.
bool IsStepAnnotationName(std::string_view n) {
  return n == "train_function" || n == "train_step" || StartsWith(n, "Step:ModeKeys.TRAIN");
}

int64_t StepNumberOf(const Trace& trace, const Timeline& t, uint32_t i, int64_t ordinal) {
  std::string_view name = trace.str(t.ev.name[i]);
  if (size_t hash = name.rfind('#'); hash != std::string_view::npos) {
    int64_t n = 0;
    auto r = std::from_chars(name.data() + hash + 1, name.data() + name.size(), n);
    if (r.ec == std::errc()) return n;
  }
  bool found = false;
  StringId key = trace.strings.Find("step_num", &found);
  if (found) {
    if (const Arg* a = t.FindArg(i, key)) {
      if (a->type == ArgType::kInt) return a->i;
      if (a->type == ArgType::kString) {
        std::string_view s = trace.str(a->s);
        int64_t n = 0;
        if (std::from_chars(s.data(), s.data() + s.size(), n).ec == std::errc()) return n;
      }
    }
  }
  return ordinal;
}

}  // namespace

WorkerId PrimaryWorker(const Trace& trace) {
  std::vector<size_t> n(trace.workers.size(), 0);
  for (const auto& t : trace.timelines)
    if (t.worker.valid() && t.worker.v < n.size()) n[t.worker.v] += t.ev.size();
  if (n.empty()) return {};
  return WorkerId{static_cast<uint32_t>(std::max_element(n.begin(), n.end()) - n.begin())};
}

StepWindows TraceToSteps(const Trace& trace, WorkerId worker) {
  StepWindows out;
  // The worker's activity span, ignoring the profiler's own window annotations (kOther on
  // derived lines), so the whole-window fallback covers real work only.
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind == TimelineKind::kDerived) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      lo = std::min(lo, t.ev.start_ns[i]);
      hi = std::max(hi, t.ev.start_ns[i] + t.ev.dur_ns[i]);
    }
  }
  if (lo > hi) lo = hi = 0;
  out.window_start_ns = lo;
  out.window_end_ns = hi;

  // Pick the timeline with the most markers; fall back to step annotations by name.
  for (int pass = 0; pass < 2 && out.steps.empty(); ++pass) {
    const Timeline* best = nullptr;
    size_t best_n = 0;
    for (const auto& t : trace.timelines) {
      if (t.worker != worker) continue;
      size_t n = 0;
      for (size_t i = 0; i < t.ev.size(); ++i)
        n += pass == 0 ? t.ev.kind[i] == EventKind::kStepMarker : IsStepAnnotationName(trace.str(t.ev.name[i]));
      // Prefer host threads at equal counts: their markers bound what the host does per step.
      if (n > best_n || (n == best_n && n > 0 && best && best->kind != TimelineKind::kHostThread &&
                         t.kind == TimelineKind::kHostThread)) {
        best = &t;
        best_n = n;
      }
    }
    if (!best || best_n == 0) continue;
    int64_t ordinal = 0;
    std::string_view first_name;
    for (uint32_t i = 0; i < best->ev.size(); ++i) {
      bool is_marker = pass == 0 ? best->ev.kind[i] == EventKind::kStepMarker
                                 : IsStepAnnotationName(trace.str(best->ev.name[i]));
      if (!is_marker) continue;
      if (first_name.empty()) first_name = trace.str(best->ev.name[i]);
      StepWindow w;
      w.start_ns = best->ev.start_ns[i];
      w.end_ns = w.start_ns + best->ev.dur_ns[i];
      w.number = StepNumberOf(trace, *best, i, ordinal++);
      if (w.end_ns <= w.start_ns) {
        ++out.excluded_partial;
        continue;
      }
      if (!out.steps.empty() && w.start_ns < out.steps.back().end_ns) {
        // Nested or overlapping markers (a marker repeated on a sub-range): keep the outer one.
        continue;
      }
      out.steps.push_back(w);
    }
    if (!out.steps.empty()) {
      if (pass == 1) out.source = "step annotations (" + std::string(first_name) + ")";
      else if (StartsWith(first_name, "ProfilerStep#")) out.source = "ProfilerStep#N markers";
      else out.source = "step markers on " + best->name;
    }
  }
  if (out.steps.empty()) {
    out.whole_window = true;
    out.source = "whole window (no step markers)";
    if (hi > lo) out.steps.push_back({0, lo, hi});
  }
  return out;
}

}  // namespace stepdoctor
