#include "stepdoctor/analysis/trace_to_critical_path.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {

constexpr int64_t kFar = int64_t(1) << 62;  // beyond any event time (core/checked_time.h)

// A thread's time cut into pieces, each labelled with the innermost event recorded over it
// (-1: nothing but step markers or annotations), from the thread's first event to its last and
// open-ended on both sides, so every moment falls in exactly one piece.
struct Piece {
  int64_t start = 0, end = 0;
  int32_t ev = -1;
};

bool IsContainer(EventKind k) {
  return k == EventKind::kStepMarker || k == EventKind::kUserAnnotation || k == EventKind::kMemoryEvent;
}

std::vector<Piece> Flatten(const Timeline& t) {
  std::vector<Piece> out;
  int64_t cur = -kFar;
  std::vector<std::pair<int32_t, int64_t>> open;  // (event, its end clipped to its parent's)
  auto emit = [&](int64_t end, int32_t ev) {
    if (end > cur) out.push_back({cur, end, ev});
    cur = std::max(cur, end);
  };
  for (size_t i = 0; i < t.ev.size(); ++i) {
    if (t.ev.dur_ns[i] <= 0 || IsContainer(t.ev.kind[i])) continue;
    const int64_t s = t.ev.start_ns[i];
    while (!open.empty() && open.back().second <= s) {
      emit(open.back().second, open.back().first);
      open.pop_back();
    }
    emit(s, open.empty() ? -1 : open.back().first);
    const int64_t e = open.empty() ? t.end_ns(uint32_t(i)) : std::min(t.end_ns(uint32_t(i)), open.back().second);
    open.push_back({int32_t(i), e});
  }
  while (!open.empty()) {
    emit(open.back().second, open.back().first);
    open.pop_back();
  }
  emit(kFar, -1);
  return out;
}

// The piece holding the moment just before `t`.
const Piece& PieceBefore(const std::vector<Piece>& p, int64_t t) {
  auto it = std::lower_bound(p.begin(), p.end(), t, [](const Piece& x, int64_t v) { return x.start < v; });
  return *(it == p.begin() ? it : it - 1);
}

PathKind DeviceKind(const DeviceOp& op) {
  return op.role == DeviceWorkRole::kCopy || op.role == DeviceWorkRole::kMemset ? PathKind::kCopy : PathKind::kKernel;
}

struct Walker {
  const Trace& trace;
  const StepModel& m;
  mutable RuntimeCallNames call_names;  // each name judged once (a memo: the walk stays const)
  std::vector<const Timeline*> threads;
  std::vector<std::vector<Piece>> pieces;
  size_t primary = 0;
  std::vector<int64_t> launches_of;      // runtime calls with a correlation id in the steps, per thread
  std::unordered_map<int64_t, std::pair<uint32_t, uint32_t>> launch;  // corr -> (thread, event)
  std::vector<uint32_t> by_end;          // device ops by end
  std::vector<int64_t> stream_prev;      // the previous op on the same stream, -1 none
  std::unordered_map<int64_t, bool> reaches_device;  // correlation ids of the worker's device work
  size_t turn_cap = 1000;                // see Walk
  struct Raw {
    int64_t start, end;
    PathKind kind;
    StringId name;  // 0 with `text`
    const char* text;
    int stream;
  };

  Walker(const Trace& t, WorkerId worker, const StepModel& model) : trace(t), m(model), call_names(t.strings) {
    const int64_t lo = m.lo(), hi = m.hi();
    std::vector<int64_t> busy;  // events in the steps, per thread
    size_t marker_thread = SIZE_MAX;
    for (const auto& tl : t.timelines) {
      if (tl.worker != worker || tl.kind != TimelineKind::kHostThread) continue;
      const uint32_t th = uint32_t(threads.size());
      threads.push_back(&tl);
      pieces.push_back(Flatten(tl));
      turn_cap += 4 * pieces.back().size();
      int64_t n = 0, launches = 0;
      for (size_t i = 0; i < tl.ev.size(); ++i) {
        if (tl.ev.start_ns[i] >= hi || tl.end_ns(uint32_t(i)) <= lo) continue;
        ++n;
        if (tl.ev.kind[i] == EventKind::kStepMarker && marker_thread == SIZE_MAX) marker_thread = th;
        if (tl.ev.kind[i] == EventKind::kRuntime && tl.ev.corr[i] != 0) {
          launch[tl.ev.corr[i]] = {th, uint32_t(i)};
          ++launches;
        }
      }
      busy.push_back(n);
      launches_of.push_back(launches);
    }
    primary = marker_thread != SIZE_MAX ? marker_thread
                                        : size_t(std::max_element(busy.begin(), busy.end()) - busy.begin());
    by_end.resize(m.device.size());
    std::iota(by_end.begin(), by_end.end(), 0u);
    std::sort(by_end.begin(), by_end.end(), [&](uint32_t a, uint32_t b) { return End(a) < End(b); });
    turn_cap += 4 * m.device.size();
    for (const auto& tl : t.timelines)
      if (tl.worker == worker && tl.kind == TimelineKind::kDeviceStream)
        for (size_t i = 0; i < tl.ev.size(); ++i)
          if (tl.ev.corr[i] != 0 && IsDeviceActivity(tl.ev.kind[i])) reaches_device[tl.ev.corr[i]] = true;
    stream_prev.assign(m.device.size(), -1);
    std::vector<int64_t> last(m.stream_count, -1);
    for (size_t i = 0; i < m.device.size(); ++i) {  // model.device is sorted by start
      stream_prev[i] = last[m.device[i].stream];
      last[m.device[i].stream] = int64_t(i);
    }
  }

  int64_t End(uint32_t i) const { return m.device[i].start_ns + m.device[i].dur_ns; }

  // The device op with a duration that ended last in (after, at_most], not on `skip_stream`.
  int64_t LastEnded(int64_t after, int64_t at_most, int skip_stream) const {
    auto it = std::upper_bound(by_end.begin(), by_end.end(), at_most, [&](int64_t v, uint32_t i) { return v < End(i); });
    for (int scanned = 0; it != by_end.begin() && scanned < 256; ++scanned) {
      const uint32_t i = *--it;
      if (End(i) <= after) break;
      if (m.device[i].dur_ns > 0 && int(m.device[i].stream) != skip_stream) return i;
    }
    return -1;
  }

  // A thread other than the primary with an event recorded just before `t`, the one that
  // launches most where several are; `primary` where none is.
  size_t BusyThread(int64_t t) const {
    size_t best = primary;
    for (size_t i = 0; i < threads.size(); ++i)
      if (i != primary && PieceBefore(pieces[i], t).ev >= 0 && (best == primary || launches_of[i] > launches_of[best]))
        best = i;
    return best;
  }

  // A launching thread other than the primary whose last recorded piece ending in (from, t] ends
  // latest, and that end: where the primary is silent and no thread is working at `t` (a gap
  // between two backward ops on the autograd thread), the work inside the silence is still the
  // step's. {primary, t} where none worked there.
  std::pair<size_t, int64_t> LastWorkedWithin(int64_t from, int64_t t) const {
    std::pair<size_t, int64_t> best{primary, t};
    int64_t best_end = from;
    for (size_t i = 0; i < threads.size(); ++i) {
      if (i == primary || launches_of[i] == 0) continue;
      const auto& p = pieces[i];
      auto it = std::lower_bound(p.begin(), p.end(), t, [](const Piece& x, int64_t v) { return x.start < v; });
      // Back from the piece holding `t` to the last one with an event that ends after `from`.
      while (it != p.begin()) {
        --it;
        if (it->end <= from) break;
        if (it->ev >= 0) {
          const int64_t end = std::min(it->end, t);
          if (end > best_end) best = {i, end}, best_end = end;
          break;
        }
      }
    }
    return best;
  }

  // Whether the host segment of the model holding the moment before `t` is a wait on the device.
  bool ModelSaysSync(int64_t t) const {
    auto it = std::lower_bound(m.host.begin(), m.host.end(), t, [](const HostSegment& h, int64_t v) { return h.start_ns < v; });
    if (it == m.host.begin()) return false;
    --it;
    return it->end_ns >= t && it->part == HostPart::kSync;
  }

  bool IsSyncEvent(const Timeline& tl, uint32_t e, int64_t t) const {
    const EventKind k = tl.ev.kind[e];
    if (k == EventKind::kSync) return true;
    if (k != EventKind::kRuntime) return false;
    const RuntimeCallRole r = call_names.Role(tl.ev.name[e], tl.ev.dur_ns[e], false);
    return r == RuntimeCallRole::kSync || r == RuntimeCallRole::kBlockingCopy || ModelSaysSync(t);
  }

  // The walk of one step, from its end back to its start; segments in reverse time order.
  std::vector<Raw> Walk(int64_t S, int64_t E) const {
    std::vector<Raw> out;
    auto add = [&](int64_t a, int64_t b, PathKind k, StringId name, const char* text, int stream) {
      a = std::max(a, S);
      b = std::min(b, E);
      if (b > a) out.push_back({a, b, k, name, text, stream});
    };
    size_t th = primary;
    int64_t t = E;
    int64_t dev = -1;  // the device op the path is on; -1 on the host
    // A step that ends with the host idle (a window that ends with the device's work) ends with the
    // device work that finished last in that idle time.
    if (const Piece& end = PieceBefore(pieces[th], t); end.ev < 0) {
      dev = LastEnded(end.start, t, -1);
      if (dev >= 0) {
        add(End(uint32_t(dev)), t, PathKind::kHost, {}, "(untraced)", -1);
        t = End(uint32_t(dev));
      }
    }
    // Each turn moves `t` back or moves to an earlier op on a stream; the bound is a safeguard.
    for (size_t turn = 0; t > S && turn < turn_cap; ++turn) {
      if (dev < 0) {
        const Piece& p = PieceBefore(pieces[th], t);
        if (p.ev < 0) {
          if (th != primary) {  // another thread idle before this: the primary thread set it going
            th = primary;
            continue;
          }
          // The primary thread has nothing recorded: where another thread is working (PyTorch's
          // autograd thread during backward), the path follows it.
          if (const size_t other = BusyThread(t); other != primary) {
            th = other;
            continue;
          }
          if (const auto [other, end] = LastWorkedWithin(p.start, t); other != primary) {
            add(end, t, PathKind::kHost, {}, "(untraced)", -1);
            t = end;
            th = other;
            continue;
          }
          // Silent from while device work ran until after it ended: read as an untraced wait on it
          // (a host spinning on device memory, as DeepEP's dispatch does).
          if (const int64_t d = LastEnded(p.start, t, -1); d >= 0 && m.device[size_t(d)].start_ns <= p.start) {
            add(End(uint32_t(d)), t, PathKind::kHost, {}, "(untraced)", -1);
            t = End(uint32_t(d));
            dev = d;
            continue;
          }
          add(p.start, t, PathKind::kHost, {}, "(untraced)", -1);
          t = p.start;
          continue;
        }
        const Timeline& tl = *threads[th];
        const uint32_t e = uint32_t(p.ev);
        const StringId name = tl.ev.name[e];
        if (IsSyncEvent(tl, e, t)) {
          const int64_t d = LastEnded(tl.ev.start_ns[e], t, -1);
          if (d >= 0) {
            add(End(uint32_t(d)), t, PathKind::kWait, name, nullptr, -1);
            t = End(uint32_t(d));
            dev = d;
            continue;
          }
          add(p.start, t, PathKind::kWait, name, nullptr, -1);
        } else {
          const bool launches = tl.ev.kind[e] == EventKind::kRuntime && reaches_device.count(tl.ev.corr[e]) > 0;
          add(p.start, t, launches ? PathKind::kLaunch : PathKind::kHost, name, nullptr, -1);
        }
        t = p.start;
        continue;
      }
      const DeviceOp& op = m.device[size_t(dev)];
      add(op.start_ns, std::min(t, End(uint32_t(dev))), DeviceKind(op), op.name, nullptr, int(op.stream));
      t = std::min(t, op.start_ns);
      const int64_t prev = stream_prev[size_t(dev)];
      const int64_t prev_end = prev >= 0 ? End(uint32_t(prev)) : -kFar;
      const int64_t launch_end = op.launch_ns != DeviceOp::kNoLaunch ? op.launch_ns : -kFar;
      const int64_t held_until = std::max(prev_end, launch_end);
      if (held_until == -kFar) {  // nothing recorded made it wait: the host carries on
        dev = -1;
        th = primary;
        continue;
      }
      if (t - held_until > kCrossStreamGapNs) {
        const int64_t x = LastEnded(held_until, t, int(op.stream));
        if (x >= 0) {
          add(End(uint32_t(x)), t, PathKind::kWait, {}, "(wait on another stream)", int(op.stream));
          t = End(uint32_t(x));
          dev = x;
          continue;
        }
      }
      if (prev >= 0 && prev_end >= launch_end) {
        add(prev_end, t, PathKind::kWait, {}, "(stream gap)", int(op.stream));
        t = std::min(t, prev_end);
        dev = prev;
        continue;
      }
      auto l = launch.find(op.corr);
      // Launched long before it started on an idle stream: nothing recorded held it (device work
      // the trace lacks, or queue latency), as the breakdown's queued time; not the launch's cost.
      if (t - launch_end > kQueuedSlackNs)
        add(launch_end, t, PathKind::kWait, {}, "(queued after its launch: device work not recorded, or queue latency)",
            int(op.stream));
      else
        add(launch_end, t, PathKind::kLaunch, l != launch.end() ? threads[l->second.first]->ev.name[l->second.second] : StringId{},
            l != launch.end() ? nullptr : "(launch)", -1);
      t = launch_end;
      th = l != launch.end() ? l->second.first : primary;
      dev = -1;
    }
    return out;
  }
};

StepCriticalPath Summarise(const Trace& trace, const std::vector<Walker::Raw>& raw, const StepWindow& s, int64_t lo,
                           bool keep) {
  StepCriticalPath p;
  p.step = s.number;
  p.start_ms = double(s.start_ns - lo) / 1e6;
  p.step_ms = double(s.dur_ns()) / 1e6;
  std::map<std::pair<std::string, PathKind>, PathContributor> by_name;
  std::vector<double> longest;  // per segment, its longest part
  for (auto it = raw.rbegin(); it != raw.rend(); ++it) {
    std::string name = it->text ? it->text : std::string(trace.str(it->name));
    const double ms = double(it->end - it->start) / 1e6;
    p.path_ms += ms;
    p.kind_ms[size_t(it->kind)] += ms;
    PathContributor& c = by_name[{name, it->kind}];
    c.ms += ms;
    ++c.count;
    if (!keep) continue;
    // Adjacent parts of one kind (and stream) make one segment, named by its longest part.
    const double start = double(it->start - lo) / 1e6;
    if (!p.segments.empty() && p.segments.back().kind == it->kind && p.segments.back().stream == it->stream) {
      PathSegment& b = p.segments.back();
      b.dur_ms = start + ms - b.start_ms;
      ++b.parts;
      if (ms > longest.back()) {
        longest.back() = ms;
        b.name = std::move(name);
      }
      continue;
    }
    p.segments.push_back({start, ms, it->kind, std::move(name), it->stream, 1});
    longest.push_back(ms);
  }
  for (auto& [key, c] : by_name) {
    c.name = key.first;
    c.kind = key.second;
    p.top.push_back(std::move(c));
  }
  std::sort(p.top.begin(), p.top.end(), [](const PathContributor& a, const PathContributor& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.name < b.name;
  });
  if (p.top.size() > kPathTopContributors) p.top.resize(kPathTopContributors);
  return p;
}

}  // namespace

const char* PathKindName(PathKind k) {
  switch (k) {
    case PathKind::kHost: return "host";
    case PathKind::kLaunch: return "launch";
    case PathKind::kKernel: return "kernel";
    case PathKind::kCopy: return "copy";
    case PathKind::kWait: return "wait";
    case PathKind::kCount_: break;
  }
  return "?";
}

std::optional<PathKind> PathKindFromName(std::string_view name) {
  for (int k = 0; k < kPathKindCount; ++k)
    if (name == PathKindName(PathKind(k))) return PathKind(k);
  return std::nullopt;
}

CriticalPathSummary TraceToCriticalPath(const Trace& trace, WorkerId worker, const StepModel& model, PathSegments keep) {
  CriticalPathSummary out;
  if (model.steps.empty() || model.cpu_only || model.device_missing || model.device.empty()) return out;
  const Walker w(trace, worker, model);
  if (w.threads.empty()) return out;
  std::vector<size_t> order(model.steps.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return model.steps[a].dur_ns() < model.steps[b].dur_ns(); });
  out.median_index = int(order[(order.size() - 1) / 2]);
  for (size_t i = 0; i < model.steps.size(); ++i) {
    const StepWindow& s = model.steps[i];
    const bool segs = keep == PathSegments::kAll || int(i) == out.median_index;
    out.steps.push_back(Summarise(trace, w.Walk(s.start_ns, s.end_ns), s, model.lo(), segs));
  }
  return out;
}

std::string NoCriticalPathReason(const StepModel& model) {
  if (model.device.empty() || model.ops_with_launch > 0) return {};
  return fmt::format(
      "no critical path: the trace links none of its {} device operations to the call that launched it (no "
      "correlation ids; TF1 timelines record none), so a path cannot follow the host into the device",
      model.device.size());
}

CriticalPathSummary TraceToReportCriticalPath(const Trace& trace, WorkerId worker, const StepWindows& windows) {
  const StepModel m = TraceToStepModel(trace, worker, windows, DeviceCoverage::kCaptured);
  return TraceToCriticalPath(trace, worker, m, PathSegments::kMedian);
}

}  // namespace stepdoctor
