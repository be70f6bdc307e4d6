#include "stepdoctor/analysis/trace_to_steps.h"

#include "stepdoctor/analysis/repeated_iterations.h"
#include "stepdoctor/analysis/signals.h"  // kOutlierStepFactor
#include "stepdoctor/analysis/tf1_runs.h"
#include "stepdoctor/model/runtime_calls.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>

namespace stepdoctor {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSeparator(char c) { return c == '_' || c == ' ' || c == '-' || c == '#' || c == ':' || c == '.'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

// A range's name without what people decorate step names with: a trailing step number
// ("train_step_12", "iteration 3", "step#4") and framing marks ("## train_step ##"), lower case.
std::string StepNameCore(std::string_view n) {
  size_t b = 0, e = n.size();
  auto frame = [](char c) { return c == '#' || c == ' ' || c == '*' || c == '=' || c == '[' || c == ']'; };
  while (b < e && frame(n[b])) ++b;
  while (e > b && frame(n[e - 1])) --e;
  size_t digits = e;
  while (digits > b && IsDigit(n[digits - 1])) --digits;
  if (digits < e && digits > b && IsSeparator(n[digits - 1])) {
    e = digits;
    while (e > b && IsSeparator(n[e - 1])) --e;
  }
  std::string out;
  for (size_t i = b; i < e; ++i) out.push_back((n[i] == '-' || n[i] == ' ') ? '_' : Lower(n[i]));
  return out;
}

}  // namespace

bool IsStepAnnotationName(std::string_view n) {
  if (n == "train_function" || StartsWith(n, "Step:ModeKeys.TRAIN")) return true;
  // What users call the ranges they wrap around an iteration: "train_step", "training_step",
  // "Iteration 7", "step_3", "train_batch". The whole name must be one of these (an optimizer's
  // "Optimizer.step#SGD.step" or a "scheduler.step" is not a training step).
  static constexpr std::string_view kCores[] = {"step",       "train_step",     "training_step",  "train_one_step",
                                                "iteration",  "iter",           "train_iter",     "train_iteration",
                                                "training_iteration", "train_batch", "training_batch", "train_on_batch"};
  if (n.size() > 64) return false;
  const std::string core = StepNameCore(n);
  for (std::string_view c : kCores)
    if (core == c) return true;
  return false;
}

ProfilerControl ProfilerControlOf(std::string_view n) {
  const size_t file = n.rfind("profiler.py");
  const size_t space = n.rfind(' ');
  if (file == std::string_view::npos || space == std::string_view::npos || space < file) return ProfilerControl::kNone;
  std::string_view fn = n.substr(space + 1);
  if (fn == "start_trace" || fn == "_start_trace") return ProfilerControl::kStart;
  if (fn == "stop_trace" || fn == "_stop_trace") return ProfilerControl::kStop;
  return ProfilerControl::kNone;
}

bool StepAnnotationNames::operator()(StringId id) {
  if (id.v >= memo_.size()) return IsStepAnnotationName(trace_.str(id));
  if (memo_[id.v] < 0) memo_[id.v] = IsStepAnnotationName(trace_.str(id)) ? 1 : 0;
  return memo_[id.v] == 1;
}

namespace {

int64_t StepNumberOf(const Trace& trace, const Timeline& t, uint32_t i, int64_t ordinal) {
  std::string_view name = trace.str(t.ev.name[i]);
  if (size_t hash = name.rfind('#'); hash != std::string_view::npos) {
    int64_t n = 0;
    auto r = std::from_chars(name.data() + hash + 1, name.data() + name.size(), n);
    if (r.ec == std::errc()) return n;
  }
  // A number the name ends with, after a separator: "train_step_12", "iteration 3".
  size_t digits = name.size();
  while (digits > 0 && IsDigit(name[digits - 1])) --digits;
  if (digits < name.size() && digits > 0 && IsSeparator(name[digits - 1])) {
    int64_t n = 0;
    auto r = std::from_chars(name.data() + digits, name.data() + name.size(), n);
    if (r.ec == std::errc() && r.ptr == name.data() + name.size()) return n;
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

// Events that recur once per training iteration on the host thread that drives it (matched by
// name prefix), in order of preference. An anchor that starts an iteration (the input wait that fetches its batch) cuts
// steps at its starts; one that ends it (the optimizer update) cuts them at its ends.
enum class AnchorEdge : uint8_t { kStarts, kEnds };
struct IterationAnchor {
  std::string_view prefix;
  AnchorEdge edge;
  std::string_view label;
};
constexpr IterationAnchor kIterationAnchors[] = {
    // PyTorch's DataLoader fetch, once per iteration on the training thread. (TensorFlow's
    // IteratorGetNext runs on executor threads, often several times a step: not an anchor.)
    {"enumerate(DataLoader)#", AnchorEdge::kStarts, "the DataLoader fetch that starts each iteration"},
    {"Optimizer.step#", AnchorEdge::kEnds, "the optimizer step that ends each iteration"},
    {"Optimizer.zero_grad#", AnchorEdge::kStarts, "the gradient reset of each iteration"},
    // A Horovod timeline: each gradient tensor's all-reduce is negotiated once an iteration, on
    // the tensor's own lane; the start-up broadcast before the first one is no iteration's.
    {"NEGOTIATE_ALLREDUCE", AnchorEdge::kStarts, "the all-reduce negotiation of the first gradient tensor of each iteration"},
};

bool MatchesAnchor(const Trace& trace, const Timeline& t, uint32_t i, const IterationAnchor& a) {
  return StartsWith(trace.str(t.ev.name[i]), a.prefix);
}

// Top-level occurrences (not nested in an earlier one) of an anchor on one thread.
std::vector<uint32_t> AnchorOccurrences(const Trace& trace, const Timeline& t, const IterationAnchor& a) {
  std::vector<uint32_t> out;
  int64_t cur_end = INT64_MIN;
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    if (t.ev.dur_ns[i] <= 0 || !MatchesAnchor(trace, t, i, a)) continue;
    if (t.ev.start_ns[i] < cur_end) continue;
    cur_end = t.end_ns(i);
    out.push_back(i);
  }
  return out;
}

// The top-level calls of one torch.compile frame on a thread ("Torch-Compiled Region: F/C", F the
// frame, C its compile, which a recompile bumps): the frame called fewest times, the earliest at
// equal counts; none where some frame is called once (the window holds one iteration, or
// compiled code runs outside the loop, and what an iteration is cannot be told). Called once per iteration (the compiled model or step), it
// recurs as the DataLoader fetch does; a frame called more often is a graph break's remainder
// or a compiled block the model calls per layer.
std::vector<uint32_t> CompiledFrameOccurrences(const Trace& trace, const Timeline& t) {
  static constexpr std::string_view kRegion = "Torch-Compiled Region: ";
  std::map<std::string_view, std::vector<uint32_t>> by_frame;
  std::map<std::string_view, int64_t> open_until;  // per frame, where its latest call ends
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    const std::string_view n = trace.str(t.ev.name[i]);
    if (t.ev.dur_ns[i] <= 0 || !StartsWith(n, kRegion)) continue;
    const std::string_view frame = n.substr(kRegion.size(), n.find('/', kRegion.size()) - kRegion.size());
    auto [it, fresh] = open_until.try_emplace(frame, INT64_MIN);
    if (t.ev.start_ns[i] < it->second) continue;  // nested in its own frame's call
    it->second = t.end_ns(i);
    by_frame[frame].push_back(i);
  }
  const std::vector<uint32_t>* best = nullptr;
  for (const auto& [frame, occ] : by_frame) {
    if (occ.size() < 2) return {};  // a frame called once: one iteration, or calls outside the loop
    if (!best || occ.size() < best->size() || (occ.size() == best->size() && occ.front() < best->front())) best = &occ;
  }
  return best ? *best : std::vector<uint32_t>{};
}

// Iterations from repeated host structure where the trace has no step markers (the autograd
// profiler, `torch.profiler` without `schedule`, TF1 sessions). REQUIRED: `out` has no steps.
void InferSteps(const Trace& trace, WorkerId worker, StepWindows* out) {
  constexpr IterationAnchor kCompiledFrame{"Torch-Compiled Region: ", AnchorEdge::kStarts,
                                           "the call of the compiled model that starts each iteration"};
  const Timeline* best = nullptr;
  std::vector<uint32_t> best_occ;
  const IterationAnchor* anchor = nullptr;
  for (const IterationAnchor* a = kIterationAnchors; a <= std::end(kIterationAnchors) && !best; ++a) {
    const bool compiled = a == std::end(kIterationAnchors);  // after the named anchors
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
      std::vector<uint32_t> occ = compiled ? CompiledFrameOccurrences(trace, t) : AnchorOccurrences(trace, t, *a);
      // The most occurrences; at equal counts the lane whose first comes first (per-tensor
      // lanes of a Horovod timeline: the tensor that opens each iteration).
      if (occ.size() >= 2 && (occ.size() > best_occ.size() ||
                              (best && occ.size() == best_occ.size() &&
                               t.ev.start_ns[occ.front()] < best->ev.start_ns[best_occ.front()]))) {
        best = &t;
        best_occ = std::move(occ);
        anchor = compiled ? &kCompiledFrame : a;
      }
    }
  }
  if (!best) return;
  const Timeline& t = *best;
  int64_t ordinal = 1;
  if (anchor->edge == AnchorEdge::kStarts) {
    for (size_t k = 0; k + 1 < best_occ.size(); ++k)
      out->steps.push_back({ordinal++, t.ev.start_ns[best_occ[k]], t.ev.start_ns[best_occ[k + 1]]});
    // The last iteration ends with the last optimizer step after its start, where there is one.
    int64_t last_start = t.ev.start_ns[best_occ.back()], last_end = 0;
    for (uint32_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.start_ns[i] > last_start && StartsWith(trace.str(t.ev.name[i]), "Optimizer.step#"))
        last_end = std::max(last_end, t.end_ns(i));
    if (last_end > last_start) out->steps.push_back({ordinal++, last_start, last_end});
    else ++out->excluded_partial;
  } else {
    ++out->excluded_partial;  // what precedes the first end has no known start
    for (size_t k = 0; k + 1 < best_occ.size(); ++k)
      out->steps.push_back({ordinal++, t.end_ns(best_occ[k]), t.end_ns(best_occ[k + 1])});
  }
  std::string_view first = trace.str(t.ev.name[best_occ.front()]);
  out->inferred = true;
  out->source = "iterations inferred from " + std::string(anchor->label) + " (" + std::string(first) + "; no step markers)";
}

// Whether most of the first step's excess over `median_ns` is spent in the first fetch of a
// DataLoader with worker processes: the fetch that starts the workers (each imports and builds
// its dataset), once per iterator, whatever stalls come later.
bool FirstStepStartsLoaderWorkers(const Trace& trace, WorkerId worker, const StepWindow& first, int64_t median_ns) {
  const int64_t excess = first.dur_ns() - median_ns;
  if (excess <= 0) return false;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size() && t.ev.start_ns[i] < first.end_ns; ++i) {
      if (t.ev.start_ns[i] < first.start_ns || t.ev.kind[i] != EventKind::kInputWait) continue;
      // The first fetch inside the step: it starts the workers, or it is no start-up at all.
      const std::string_view n = trace.str(t.ev.name[i]);
      return n.find("_MultiProcessingDataLoaderIter") != std::string_view::npos && 2 * t.ev.dur_ns[i] >= excess;
    }
  }
  return false;
}

// The time of the first step's runtime calls over kOneOffRuntimeNs whose name no later step calls
// that long (context creation, lazy module loading: start-up, RuntimeCallRole::kStartup).
int64_t FirstStepStartupNs(const Trace& trace, WorkerId worker, const StepWindows& w) {
  const StepWindow& first = w.steps.front();
  std::vector<std::pair<StringId, int64_t>> calls;  // in the first step
  std::vector<StringId> later;                      // names over the limit in later steps
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kRuntime || t.ev.dur_ns[i] < kOneOffRuntimeNs) continue;
      if (t.ev.start_ns[i] >= first.start_ns && t.ev.start_ns[i] < first.end_ns) calls.push_back({t.ev.name[i], t.ev.dur_ns[i]});
      else if (t.ev.start_ns[i] >= first.end_ns) later.push_back(t.ev.name[i]);
    }
  }
  int64_t ns = 0;
  for (const auto& [name, dur] : calls)
    if (std::find(later.begin(), later.end(), name) == later.end()) ns += dur;
  return ns;
}

// Moves a first step much slower than the others into `warmup`: also where later steps stall,
// when its excess is the first fetch that starts a DataLoader's workers; and a first step
// slower than kOutlierStepFactor x the others' median whose excess is mostly one-off start-up
// calls (at least half of it: FirstStepStartupNs), which a steady step never makes.
void SplitWarmup(StepWindows* w, const Trace& trace, WorkerId worker) {
  if (int(w->steps.size()) < kMinStepsForWarmup) return;
  std::vector<int64_t> rest;
  for (size_t i = 1; i < w->steps.size(); ++i) rest.push_back(w->steps[i].dur_ns());
  std::nth_element(rest.begin(), rest.begin() + rest.size() / 2, rest.end());
  double median = double(rest[rest.size() / 2]);
  const double first = double(w->steps.front().dur_ns());
  const double slowest_later = double(*std::max_element(rest.begin(), rest.end()));
  const bool later_stalls = slowest_later > kOutlierStepFactor * median;
  const bool loader_start =
      later_stalls && FirstStepStartsLoaderWorkers(trace, worker, w->steps.front(), int64_t(median));
  const bool startup_excess = median > 0 && first > kOutlierStepFactor * median &&
                              2 * double(FirstStepStartupNs(trace, worker, *w)) >= first - median;
  // A stall like the later ones, unless it is the loader's workers or the runtime starting.
  if (later_stalls && first <= kWarmupOverStallFactor * slowest_later && !loader_start && !startup_excess) return;
  if (median > 0 && (first > kWarmupStepFactor * median || startup_excess)) {
    w->warmup.push_back(w->steps.front());
    w->steps.erase(w->steps.begin());
  }
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
  StepAnnotationNames is_annotation(trace);
  for (int pass = 0; pass < 2 && out.steps.empty(); ++pass) {
    const Timeline* best = nullptr;
    size_t best_n = 0;
    for (const auto& t : trace.timelines) {
      if (t.worker != worker) continue;
      size_t n = 0;
      for (size_t i = 0; i < t.ev.size(); ++i)
        n += pass == 0 ? t.ev.kind[i] == EventKind::kStepMarker : is_annotation(t.ev.name[i]);
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
      bool is_marker = pass == 0 ? best->ev.kind[i] == EventKind::kStepMarker : is_annotation(best->ev.name[i]);
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
        ++out.excluded_partial;
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
  if (out.steps.empty()) InferSteps(trace, worker, &out);
  const bool tf1 = worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session;
  if (out.steps.empty() && tf1) {
    // A timeline that merges several sess.run calls: each step from one run's start to the next
    // (the Python between runs, building the next feed, is the step's too); the last run's next
    // start is not in the trace, so it is left out.
    const std::vector<int64_t> runs = Tf1RunStarts(trace, worker);
    for (size_t k = 0; k + 1 < runs.size(); ++k) out.steps.push_back({int64_t(k) + 1, runs[k], runs[k + 1]});
    if (!runs.empty()) {
      ++out.excluded_partial;
      out.inferred = true;
      out.source = "the " + std::to_string(runs.size()) +
                   " sess.run calls a TF1 timeline merges (each from its executors' _SOURCE to the next run's)";
    }
  }
  if (out.steps.empty() && worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).single_run &&
      hi > lo) {
    // The trace is one run of the step (a TF1 timeline's sess.run): its window is that step.
    out.single_run = out.inferred = true;
    out.source = "the one sess.run a TF1 timeline records (no step markers)";
    out.steps.push_back({1, lo, hi});
  }
  if (out.steps.empty() && !tf1) {
    RepeatedIterations rep = TraceToRepeatedIterations(trace, worker);
    if (!rep.steps.empty()) {
      out.steps = std::move(rep.steps);
      out.inferred = true;
      ++out.excluded_partial;  // the last repeat, whose end is not in the trace
      out.source = std::move(rep.source);
    }
  }
  if (out.steps.empty()) {
    out.whole_window = true;
    out.source = "whole window (no step markers)";
    // The profiler's own start and stop calls bound what the job did while it recorded.
    // Each distinct name judged once: a long trace repeats few names.
    int64_t from = lo, to = hi;
    std::vector<int8_t> control(trace.strings.size(), -1);
    auto control_of = [&](StringId id) {
      if (id.v >= control.size()) return ProfilerControlOf(trace.str(id));
      if (control[id.v] < 0) control[id.v] = int8_t(ProfilerControlOf(trace.str(id)));
      return ProfilerControl(control[id.v]);
    };
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
      for (size_t i = 0; i < t.ev.size(); ++i) {
        const ProfilerControl c = control_of(t.ev.name[i]);
        if (c == ProfilerControl::kStart) from = std::max(from, t.ev.start_ns[i] + t.ev.dur_ns[i]);
        if (c == ProfilerControl::kStop) to = std::min(to, t.ev.start_ns[i]);
      }
    }
    if ((from > lo || to < hi) && to > from) {
      out.profiler_calls_ns = (from - lo) + (hi - to);
      lo = from;
      hi = to;
      out.source = "whole window (no step markers) between the profiler's own start and stop calls";
    }
    if (hi > lo) out.steps.push_back({0, lo, hi});
  }
  SplitWarmup(&out, trace, worker);
  return out;
}

}  // namespace stepdoctor
