// One-off first calls (analysis/trace_to_step_signals.h: SlowFirstCalls, LazyLoadLaunches): an
// operator's first call far slower than its later ones, a TF1 GPU op called once that spent its
// time setting up, a kernel's first launch that loaded its code.
#include <algorithm>
#include <unordered_map>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/trace_to_coverage.h"  // IsAcceleratorOpName
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {

// Per operator name, the calls of kSlowLeadingCallNs or more that all come before its first
// shorter call, where at least kLeadingFastCalls shorter calls follow (more than the slow ones)
// and each slow call takes over kSlowFirstCallFactor times their mean: the first calls of a
// layer stack or of each shape paying their set-up (kernel selection, lazy loading, allocator
// growth) in a window too short for the 50 ms first-call rule. A name with a slow call after its
// first short one is not warming up: its slow calls recur. `taken`: first calls already found.
struct LeadingCalls {
  std::vector<Interval> slow;  // the calls of kSlowLeadingCallNs or more
  int64_t first_fast = INT64_MAX;
  double fast_ns = 0;
  int64_t fast = 0;
};

std::vector<FirstCall> LeadingSlowCalls(const std::unordered_map<StringId, LeadingCalls>& by_name,
                                        const std::vector<FirstCall>& taken) {
  std::vector<FirstCall> out;
  for (const auto& entry : by_name) {
    const StringId name = entry.first;  // lambdas below capture these (not structured bindings:
    const LeadingCalls& c = entry.second;  // clang before 16 cannot capture those)
    if (c.slow.empty() || c.fast < kLeadingFastCalls || c.fast <= int64_t(c.slow.size())) continue;
    const double fast_mean = c.fast_ns / double(c.fast);
    const bool all_lead_and_slow = std::all_of(c.slow.begin(), c.slow.end(), [&](const Interval& iv) {
      return iv.start < c.first_fast && double(iv.end - iv.start) > kSlowFirstCallFactor * fast_mean;
    });
    if (!all_lead_and_slow) continue;
    for (const Interval& iv : c.slow)
      if (std::none_of(taken.begin(), taken.end(), [&](const FirstCall& f) { return f.iv.start == iv.start && f.name == name; }))
        out.push_back({iv, name});
  }
  return out;
}

// The executor's _SOURCE op that opens a TF1 run and takes over kSlowRunStartNs and
// kSlowFirstCallFactor times the median op of the window, on a lane where it is the first such
// op and no later _SOURCE is that slow: the first run setting up (thread pools waking, buffers
// allocated), not per-op bookkeeping; a lane whose every run starts slowly pays it each run and
// keeps it as bookkeeping.
std::vector<FirstCall> SlowRunStarts(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  bool has_key = false, has_source = false;
  const StringId key = trace.strings.Find("name", &has_key);
  const StringId source = trace.strings.Find("_SOURCE", &has_source);
  if (!has_key || !has_source) return {};
  std::vector<int64_t> op_ns;
  std::unordered_map<uint32_t, std::vector<Interval>> lanes;  // each lane's _SOURCE ops
  for (uint32_t line = 0; line < trace.timelines.size(); ++line) {
    const Timeline& t = trace.timelines[line];
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.start_ns[i] < lo || t.ev.start_ns[i] >= hi) continue;
      const EventKind k = t.ev.kind[i];
      if (k != EventKind::kFrameworkOp && k != EventKind::kFrameworkOverhead) continue;
      const Arg* a = t.ev.args_n[i] ? t.FindArg(i, key) : nullptr;
      if (a && a->type == ArgType::kString && a->s == source)
        lanes[line].push_back({t.ev.start_ns[i], t.end_ns(i)});
      else
        op_ns.push_back(t.ev.dur_ns[i]);
    }
  }
  if (lanes.empty() || op_ns.empty()) return {};
  std::nth_element(op_ns.begin(), op_ns.begin() + op_ns.size() / 2, op_ns.end());
  const double slow = std::max(double(kSlowRunStartNs), kSlowFirstCallFactor * double(op_ns[op_ns.size() / 2]));
  std::vector<FirstCall> out;
  for (auto& [line, sources] : lanes) {
    std::sort(sources.begin(), sources.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    const Interval first = sources.front();
    const bool later_slow = std::any_of(sources.begin() + 1, sources.end(),
                                        [&](const Interval& iv) { return double(iv.end - iv.start) > slow; });
    if (double(first.end - first.start) > slow && !later_slow) out.push_back({first, source});
  }
  return out;
}

// In a window that shows start-up already (`found`: first calls far slower than later ones) of a
// job that used an accelerator, an operator called once whose own time (its span less its
// children's) is over kOneOffRuntimeNs and kLoneSetupFactor times the window's median operator
// call: the first operator to touch the device created its context (aten::zeros, aten::to), the
// first matrix product loaded cuBLAS. With no later call to compare it to, the start-up around it
// says what it is. A container (a record_function range, a module's forward) spends its time in
// its children and is left out.
std::vector<FirstCall> LoneSetupOperators(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi,
                                          const std::vector<FirstCall>& found,
                                          const std::unordered_map<StringId, int64_t>& calls) {
  if (found.empty()) return {};
  bool accelerator = false;
  std::vector<double> op_ns;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    accelerator |= t.kind == TimelineKind::kDeviceStream && t.ev.size() > 0;
    if (t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kFrameworkOp && t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi)
        op_ns.push_back(double(t.ev.dur_ns[i]));
  }
  if (op_ns.empty()) return {};
  if (!accelerator)
    for (const auto& [name, n] : calls)
      if (IsAcceleratorOpName(trace.str(name))) {
        accelerator = true;
        break;
      }
  if (!accelerator) return {};
  std::nth_element(op_ns.begin(), op_ns.begin() + long(op_ns.size() / 2), op_ns.end());
  const double slow = std::max(double(kOneOffRuntimeNs), kLoneSetupFactor * op_ns[op_ns.size() / 2]);
  std::vector<FirstCall> out;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    struct Open {
      uint32_t i;
      int64_t children_ns;
    };
    std::vector<Open> open;
    auto close = [&]() {
      const Open o = open.back();
      open.pop_back();
      const int64_t own = t.ev.dur_ns[o.i] - o.children_ns;
      auto c = calls.find(t.ev.name[o.i]);
      if (c != calls.end() && c->second == 1 && double(own) > slow && 2 * own >= t.ev.dur_ns[o.i] &&
          t.ev.start_ns[o.i] >= lo && t.ev.start_ns[o.i] < hi &&
          std::none_of(found.begin(), found.end(), [&](const FirstCall& f) {
            return f.iv.start <= t.ev.start_ns[o.i] && t.end_ns(o.i) <= f.iv.end;
          }))
        out.push_back({{t.ev.start_ns[o.i], t.end_ns(o.i)}, t.ev.name[o.i]});
    };
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
      while (!open.empty() && t.end_ns(open.back().i) <= t.ev.start_ns[i]) close();
      if (!open.empty()) open.back().children_ns += std::min(t.end_ns(i), t.end_ns(open.back().i)) - t.ev.start_ns[i];
      open.push_back({i, 0});
    }
    while (!open.empty()) close();
  }
  return out;
}

}  // namespace

std::vector<FirstCall> SlowFirstCalls(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  struct Calls {
    int64_t first_start = INT64_MAX, first_dur = 0;
    double later_ns = 0;
    int64_t count = 0;
    // One more call: the earliest so far is the first, the others are later ones.
    void Add(int64_t start, int64_t dur) {
      ++count;
      if (start < first_start) {
        if (first_start != INT64_MAX) later_ns += double(first_dur);
        first_start = start;
        first_dur = dur;
      } else {
        later_ns += double(dur);
      }
    }
  };
  // A TF1 session's events are named by op type, and one run executes each node once: layers of
  // one type differ in shape, so the first (largest) Conv2D or Transpose of a run is not a warm-up
  // of the later ones. Its calls are compared node by node (the event's "name" argument), which
  // only a timeline of several runs repeats.
  const bool tf1 = worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session;
  bool has_node_key = false;
  const StringId node_key = tf1 ? trace.strings.Find("name", &has_node_key) : StringId{};
  auto op_key = [&](const Timeline& t, size_t i) {
    if (has_node_key && t.ev.args_n[i])
      if (const Arg* a = t.FindArg(uint32_t(i), node_key); a && a->type == ArgType::kString) return a->s;
    return t.ev.name[i];
  };
  std::unordered_map<StringId, Calls> by_name;
  std::unordered_map<StringId, LeadingCalls> leading;  // host threads' calls, for LeadingSlowCalls
  std::unordered_map<StringId, Calls> runtime;          // host threads' runtime calls that set up or ask
  for (const auto& t : trace.timelines) {
    // Host threads, and the op-level lines a profiler derived (TF1's GPU op lanes: an op from
    // launch to completion, where cuDNN autotuning and library start-up show).
    if (t.worker != worker || t.kind == TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] == EventKind::kRuntime && t.kind == TimelineKind::kHostThread && t.ev.start_ns[i] >= lo &&
          t.ev.start_ns[i] < hi) {
        runtime[t.ev.name[i]].Add(t.ev.start_ns[i], t.ev.dur_ns[i]);
        continue;
      }
      if (t.ev.kind[i] != EventKind::kFrameworkOp || t.ev.start_ns[i] < lo || t.ev.start_ns[i] >= hi) continue;
      const StringId key = op_key(t, i);
      by_name[key].Add(t.ev.start_ns[i], t.ev.dur_ns[i]);
      if (t.kind == TimelineKind::kHostThread) {
        LeadingCalls& l = leading[key];
        if (t.ev.dur_ns[i] >= kSlowLeadingCallNs) {
          l.slow.push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
        } else {
          l.first_fast = std::min(l.first_fast, t.ev.start_ns[i]);
          l.fast_ns += double(t.ev.dur_ns[i]);
          ++l.fast;
        }
      }
    }
  }
  std::vector<FirstCall> out;
  for (const auto& [name, c] : by_name) {
    if (c.count < 2 || c.first_dur <= kOneOffRuntimeNs) continue;
    const double later_mean = c.later_ns / double(c.count - 1);
    if (double(c.first_dur) > kSlowFirstCallFactor * later_mean)
      out.push_back({{c.first_start, c.first_start + c.first_dur}, name});
  }
  for (const FirstCall& f : LeadingSlowCalls(leading, out)) out.push_back(f);
  if (!tf1 && !out.empty()) {
    std::unordered_map<StringId, int64_t> calls;
    for (const auto& [name, c] : by_name) calls.emplace(name, c.count);
    for (const FirstCall& f : LoneSetupOperators(trace, worker, lo, hi, out, calls)) out.push_back(f);
  }
  // A runtime call that neither launches, copies nor waits (an occupancy or attribute query, a
  // handle or stream created) whose first call takes kSlowLeadingCallNs or more and over
  // kSlowFirstCallFactor times its later ones: that first call loaded or set something up (lazy
  // module loading answers an occupancy query by loading the kernel's code first).
  for (const auto& [name, c] : runtime) {
    if (c.count < 2 || c.first_dur < kSlowLeadingCallNs) continue;
    const std::string_view n = trace.str(name);
    if (IsDeviceWorkCallName(n)) continue;
    const RuntimeCallRole role = RuntimeCallRoleOf(n, c.first_dur, /*recurs_each_step=*/false);
    // (A long one-off call is start-up by its role already: the breakdown counts it there.)
    if (role == RuntimeCallRole::kSync || role == RuntimeCallRole::kBlockingCopy || role == RuntimeCallRole::kStartup)
      continue;
    if (double(c.first_dur) > kSlowFirstCallFactor * (c.later_ns / double(c.count - 1)))
      out.push_back({{c.first_start, c.first_start + c.first_dur}, name});
  }
  if (tf1)
    for (const FirstCall& f : SlowRunStarts(trace, worker, lo, hi)) out.push_back(f);
  // An op a TF1 session placed on a GPU spans its launch to completion on the op-level lane: one
  // called once (or a bookkeeping op) that takes over kOneOffRuntimeNs while the device works under a tenth of it spent
  // that time setting up (library handles, autotuning), not in its kernels.
  std::vector<Interval> lone;
  std::vector<StringId> lone_names;
  if (tf1)
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread || t.name.find("/device:GPU:") == std::string::npos)
        continue;
      for (size_t i = 0; i < t.ev.size(); ++i) {
        // A bookkeeping op (the executor's _SOURCE NoOp) does no work in any run: one that takes
        // that long is the first run setting up, however often its type recurs.
        const bool bookkeeping = t.ev.kind[i] == EventKind::kFrameworkOverhead;
        if ((t.ev.kind[i] != EventKind::kFrameworkOp && !bookkeeping) || t.ev.dur_ns[i] <= kOneOffRuntimeNs ||
            t.ev.start_ns[i] < lo || t.ev.start_ns[i] >= hi)
          continue;
        const StringId key = op_key(t, i);
        auto c = by_name.find(key);
        const bool taken = std::any_of(out.begin(), out.end(), [&](const FirstCall& f) { return f.iv.start == t.ev.start_ns[i]; });
        if (!taken && (bookkeeping || (c != by_name.end() && c->second.count == 1))) {
          lone.push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
          lone_names.push_back(key);
        }
      }
    }
  if (!lone.empty()) {
    std::vector<Interval> busy;
    for (const auto& t : trace.timelines)
      if (t.worker == worker && t.kind == TimelineKind::kDeviceStream)
        for (size_t i = 0; i < t.ev.size(); ++i)
          if (IsDeviceActivity(t.ev.kind[i])) busy.push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
    const IntervalSet device_busy = MakeIntervalSet(std::move(busy));
    for (size_t k = 0; k < lone.size(); ++k)
      if (double(LengthWithin(device_busy, lone[k].start, lone[k].end)) < kLoneOpDeviceShare * double(lone[k].end - lone[k].start))
        out.push_back({lone[k], lone_names[k]});
  }
  for (const FirstCall& f : LazyLoadLaunches(trace, worker, lo, hi)) out.push_back(f);
  for (const FirstCall& f : SetupAllocationsInFirstCalls(trace, worker, lo, hi)) out.push_back(f);
  return out;
}

std::vector<FirstCall> SetupAllocationsInFirstCalls(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  struct Inside {
    Interval iv;
    StringId call, op;  // the allocator call, and the outermost operator around it
    int64_t op_start;
  };
  std::vector<Inside> found;
  std::unordered_map<StringId, int64_t> first_start;  // operator name -> its first call's start
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    std::vector<uint32_t> open;  // operators open at the current event, outermost first
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      const int64_t start = t.ev.start_ns[i];
      while (!open.empty() && t.end_ns(open.back()) <= start) open.pop_back();
      if (t.ev.kind[i] == EventKind::kFrameworkOp) {
        auto [it, fresh] = first_start.try_emplace(t.ev.name[i], start);
        if (!fresh) it->second = std::min(it->second, start);
        open.push_back(i);
        continue;
      }
      if (t.ev.kind[i] != EventKind::kRuntime || t.ev.dur_ns[i] < kSlowLeadingCallNs || start < lo || start >= hi ||
          open.empty() || t.end_ns(i) > t.end_ns(open.front()))
        continue;
      if (RuntimeCallRoleOf(trace.str(t.ev.name[i]), t.ev.dur_ns[i], false) != RuntimeCallRole::kAllocator) continue;
      // The outermost operator: a call an operator makes through another of its own name (a
      // tensor subclass dispatching again) is still its first.
      const uint32_t op = open.front();
      found.push_back({{start, t.end_ns(i)}, t.ev.name[i], t.ev.name[op], t.ev.start_ns[op]});
    }
  }
  // An operator with such a call in a later call allocates as it goes: none of its calls count.
  std::unordered_map<StringId, bool> recurs;
  for (const Inside& f : found) recurs[f.op] = recurs[f.op] || f.op_start != first_start[f.op];
  std::vector<FirstCall> out;
  for (const Inside& f : found)
    if (!recurs[f.op]) out.push_back({f.iv, f.call});
  return out;
}

std::vector<FirstCall> LazyLoadLaunches(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  struct Candidate {
    Interval iv;
    StringId name;
    int64_t corr;
  };
  std::vector<Candidate> cand;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kRuntime && t.ev.dur_ns[i] >= kLazyLoadLaunchNs && t.ev.corr[i] != 0 &&
          t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi && IsKernelLaunchName(trace.str(t.ev.name[i])))
        cand.push_back({{t.ev.start_ns[i], t.end_ns(uint32_t(i))}, t.ev.name[i], t.ev.corr[i]});
  }
  if (cand.empty()) return {};
  // The kernel each candidate launched, the first start of each kernel name, and whether the
  // device ran anything during the call (a launch blocked on a full queue waits on busy streams).
  std::unordered_map<int64_t, std::pair<StringId, int64_t>> launched;  // corr -> (kernel name, its start)
  for (const Candidate& c : cand) launched.emplace(c.corr, std::make_pair(StringId{}, INT64_MAX));
  std::unordered_map<StringId, int64_t> first_start;
  std::vector<Interval> busy;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (!IsDeviceActivity(t.ev.kind[i])) continue;
      busy.push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
      if (t.ev.kind[i] != EventKind::kKernel) continue;
      auto [it, fresh] = first_start.try_emplace(t.ev.name[i], t.ev.start_ns[i]);
      if (!fresh) it->second = std::min(it->second, t.ev.start_ns[i]);
      if (auto l = launched.find(t.ev.corr[i]); l != launched.end() && l->second.first.v == 0)
        l->second = {t.ev.name[i], t.ev.start_ns[i]};
    }
  }
  const IntervalSet device_busy = MakeIntervalSet(std::move(busy));
  std::vector<FirstCall> out;
  for (const Candidate& c : cand) {
    const auto [kernel, kernel_start] = launched[c.corr];
    if (kernel.v == 0) continue;  // what it launched is not recorded: nothing says first use
    // The kernel's first launch: none of its name ran before this call.
    if (first_start[kernel] < c.iv.start) continue;
    // The device idle while the call ran, up to the kernel's own start (it may begin before the
    // call returns).
    if (LengthWithin(device_busy, c.iv.start, std::min(c.iv.end, kernel_start)) > 0) continue;
    out.push_back({c.iv, c.name});
  }
  return out;
}

}  // namespace stepdoctor
