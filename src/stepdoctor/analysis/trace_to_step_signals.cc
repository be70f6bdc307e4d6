#include "stepdoctor/analysis/trace_to_step_signals.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "stepdoctor/analysis/cpu_op_work.h"
#include "stepdoctor/analysis/event_totals.h"
#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/sort_runs.h"
#include "stepdoctor/model/runtime_calls.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/analysis/trace_to_host_cpu_ops.h"
#include "stepdoctor/analysis/trace_to_outlier_steps.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/model/device_work_classify.h"
#include "stepdoctor/core/checked_time.h"

namespace stepdoctor {
namespace {

constexpr int kTopEvents = 10;


struct Collected {
  IntervalSet sets[kStepCategoryCount];
  IntervalSet input_wait;   // host-side input wait, hidden or not
  IntervalSet device_busy;  // any device activity
};


// Launch -> device-work edges by correlation id, and the long runtime calls, from one pass over
// the worker's events.
struct LaunchEdges {
  std::unordered_map<int64_t, int64_t> launch_end;  // correlation id -> end of the host runtime call
  std::vector<std::pair<int64_t, int64_t>> starts;  // (device work start, correlation id), sorted
  std::unordered_set<int64_t> kernel_corrs;         // ids reaching a kernel: their calls are launches
  std::unordered_map<StringId, int> long_calls;     // runtime calls over kOneOffRuntimeNs in [lo, hi)
};

LaunchEdges CollectLaunchEdges(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  LaunchEdges e;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      const int64_t corr = t.ev.corr[i];
      if (t.kind == TimelineKind::kDeviceStream) {
        if (corr == 0 || !IsDeviceActivity(k)) continue;
        e.starts.push_back({t.ev.start_ns[i], corr});
        if (k == EventKind::kKernel || k == EventKind::kCollective) e.kernel_corrs.insert(corr);
      } else if (t.kind == TimelineKind::kHostThread && k == EventKind::kRuntime) {
        if (corr != 0) e.launch_end[corr] = t.end_ns(uint32_t(i));
        if (t.ev.dur_ns[i] > kOneOffRuntimeNs && t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi)
          ++e.long_calls[t.ev.name[i]];
      }
    }
  }
  SortRuns(e.starts);  // each stream's work comes in time order
  return e;
}

// Device idle gaps whose ending work had been queued by the host well before, and during whose
// end the host had nothing left to do: [launch end, gap end) is the device's own latency
// (untraced device work, queue latency, a clock offset), not the host's. Where the host was busy
// up to the gap's end, the work may have waited on it (a stream waiting on an event the host
// records later), so that gap stays the host's, except before the first device work recorded:
// there the device is still running what was launched before the profiler started. REQUIRED: busy is the union of device work;
// host_busy the union of the host's operators, Python frames, runtime calls and input waits.
IntervalSet QueuedGaps(const LaunchEdges& edges, const IntervalSet& busy, const IntervalSet& host_busy) {
  const auto& starts = edges.starts;
  const auto& launch_end = edges.launch_end;
  std::vector<Interval> out;
  int64_t prev_end = INT64_MIN;
  for (const Interval& b : busy) {
    // The earliest-launched work among what starts this busy interval decides.
    auto it = std::lower_bound(starts.begin(), starts.end(), std::make_pair(b.start, int64_t(INT64_MIN)));
    int64_t queued_at = INT64_MAX;
    for (; it != starts.end() && it->first == b.start; ++it)
      if (auto l = launch_end.find(it->second); l != launch_end.end()) queued_at = std::min(queued_at, l->second);
    if (queued_at != INT64_MAX && b.start - queued_at > kQueuedSlackNs) {
      // The host's last activity before the device started.
      auto h = std::upper_bound(host_busy.begin(), host_busy.end(), b.start,
                                [](int64_t t, const Interval& iv) { return t < iv.start; });
      int64_t host_end = h == host_busy.begin() ? INT64_MIN : std::min(b.start, std::prev(h)->end);
      // Before the first device work the trace records, queued work that does not start is
      // behind work launched before the profiler began (untraced): the device's, whatever the host
      // does meanwhile.
      const bool first = prev_end == INT64_MIN;
      if (first || b.start - host_end > kQueuedSlackNs) out.push_back({std::max(queued_at, prev_end), b.start});
    }
    prev_end = b.end;
  }
  return MakeIntervalSet(std::move(out));
}

// Gaps of `gaps` at least `min_ns` long.
IntervalSet LongGaps(const IntervalSet& gaps, int64_t min_ns) {
  IntervalSet out;
  for (const Interval& g : gaps)
    if (g.end - g.start >= min_ns) out.push_back(g);
  return out;
}

}  // namespace

const char* StepCategoryId(StepCategory c) {
  switch (c) {
    case StepCategory::kInput: return "input";
    case StepCategory::kKernelLaunch: return "kernel_launch";
    case StepCategory::kHostCompute: return "host_compute";
    case StepCategory::kDeviceCompute: return "device_compute";
    case StepCategory::kCollectives: return "collectives";
    case StepCategory::kMemcpy: return "memcpy";
    case StepCategory::kOther: return "other";
    case StepCategory::kCount_: break;
  }
  return "?";
}

StepSignals TraceToStepSignals(const Trace& trace, WorkerId worker, const StepWindows& windows) {
  RuntimeCallNames call_names(trace.strings);  // each name judged once
  StepSignals s;
  s.worker = worker;
  s.has_steps = !windows.whole_window;
  DeviceEvidence device = TraceToDeviceEvidence(trace, worker);
  s.cpu_only = device.coverage == DeviceCoverage::kCpuOnly;
  s.device_missing = device.coverage == DeviceCoverage::kMissing;
  s.device_evidence = std::move(device.evidence);
  s.device_listed_unused = std::move(device.listed_unused);
  s.device_per_operator = device.per_operator;
  s.device_nothing_launched = device.nothing_launched;
  s.device_tracer_on = device.tracer_on;
  s.device_tracer_started = device.tracer_started;
  s.device_calls_traced = device.calls_traced || device.tracer_started;
  s.device_no_operators = device.no_operators;
  s.profiler_window = std::move(device.profiler_window);
  s.device_wait_ms = device.longest_device_wait_ns / 1e6;
  s.device_wait_name = std::move(device.longest_device_wait_name);
  s.device_synced_after_launches = std::move(device.synced_after_launches);
  s.no_host_events = device.coverage == DeviceCoverage::kCaptured &&
                     std::none_of(trace.timelines.begin(), trace.timelines.end(), [&](const Timeline& t) {
                       return t.worker == worker && t.kind == TimelineKind::kHostThread && t.ev.size() > 0;
                     });
  if (windows.steps.empty()) return s;

  std::vector<Interval> raw[kStepCategoryCount];
  std::vector<Interval> launched_raw;  // device work the steps launched (StepSignals::device_launched_ms)
  std::vector<Interval> input_raw, busy_raw, sync_raw, startup_raw, annotation_raw, overhead_raw;
  // Waiting for other ranks before a collective can start (Horovod's NEGOTIATE_*): no data moves.
  std::vector<Interval> peer_raw;
  std::vector<Interval> python_raw;  // Python frames the profiler recorded (with_stack)
  std::vector<Interval> compiled_raw;  // torch.compile's regions on the host
  std::vector<Interval> allocator_raw;  // driver allocations and frees (RuntimeCallRole::kAllocator)
  std::vector<int8_t> compiled_name(trace.strings.size(), -1);  // per name id: a compiled region
  std::unordered_map<StringId, std::pair<int64_t, int64_t>> startup_names;  // name -> (ns, count)
  std::vector<Interval> reduced_raw, h2d_raw, d2h_raw, d2d_raw;  // for the finer splits
  std::vector<double> kernel_us, launch_us;
  double kernel_ns_total = 0, kernel_ns_reduced = 0, kernel_ns_all = 0, kernel_ns_matrix = 0;
  int64_t tiny_ns = 0, top_ns = 0, top_count = 0;
  std::unordered_map<StringId, std::pair<int64_t, int64_t>> input_names;  // name -> (ns, count)
  const int64_t lo = windows.steps.front().start_ns, hi = windows.steps.back().end_ns;
  // Names repeat: classify each distinct kernel name once (-1 not yet, 0 full precision stated,
  // 1 reduced precision, 2 precision unstated).
  std::vector<int8_t> reduced(trace.strings.size(), -1);
  std::vector<int8_t> matrix(trace.strings.size(), 0);  // 1: a GEMM or convolution (set with `reduced`)

  const LaunchEdges edges = CollectLaunchEdges(trace, worker, lo, hi);
  StepAnnotationNames is_step(trace);
  const auto& kernel_corrs = edges.kernel_corrs;
  // Names of runtime calls over kOneOffRuntimeNs that recur in at least half the steps (and twice).
  std::unordered_map<StringId, bool> long_per_step;
  for (const auto& [name, count] : edges.long_calls)
    if (RecursEachStep(count, int64_t(windows.steps.size()))) long_per_step[name] = true;

  // First calls of an operator far slower than its later calls (cuDNN autotuning, lazy module
  // loading, allocator growth inside the first convolution): warm-up, not the step's cost.
  // A first call inside another (aten::convolution inside the first aten::conv2d) is the same
  // start-up: named once, by the outermost.
  std::vector<Interval> first_call_raw;
  std::vector<FirstCall> firsts = SlowFirstCalls(trace, worker, lo, hi);
  std::sort(firsts.begin(), firsts.end(), [](const FirstCall& a, const FirstCall& b) {
    return a.iv.start != b.iv.start ? a.iv.start < b.iv.start : a.iv.end > b.iv.end;
  });
  int64_t outer_end = INT64_MIN;
  for (const FirstCall& f : firsts) {
    first_call_raw.push_back(f.iv);
    s.first_calls.push_back(f.iv);
    if (f.iv.end <= outer_end) continue;
    outer_end = f.iv.end;
    auto& v = startup_names[f.name];
    v.first += f.iv.end - f.iv.start;
    ++v.second;
  }
  // The same, in (start, end) order: each launch is looked up in it (one per kernel name can be
  // thousands, launches millions).
  std::vector<Interval> first_calls_sorted = first_call_raw;
  std::sort(first_calls_sorted.begin(), first_calls_sorted.end(),
            [](const Interval& a, const Interval& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    if (t.kind == TimelineKind::kDeviceStream) {
      for (size_t i = 0; i < t.ev.size(); ++i) {
        EventKind k = t.ev.kind[i];
        if (!IsDeviceActivity(k)) continue;
        Interval iv{t.ev.start_ns[i], t.end_ns(uint32_t(i))};
        busy_raw.push_back(iv);
        {
          const int64_t corr = t.ev.corr[i];
          auto launch = corr != 0 ? edges.launch_end.find(corr) : edges.launch_end.end();
          const int64_t at = launch != edges.launch_end.end() ? launch->second : iv.start;
          if (at >= lo && at < hi) launched_raw.push_back(iv);
        }
        StepCategory c = k == EventKind::kKernel       ? StepCategory::kDeviceCompute
                         : k == EventKind::kCollective ? StepCategory::kCollectives
                                                       : StepCategory::kMemcpy;
        raw[int(c)].push_back(iv);
        if (k == EventKind::kMemcpyH2D) h2d_raw.push_back(iv);
        else if (k == EventKind::kMemcpyD2H) d2h_raw.push_back(iv);
        else if (k == EventKind::kMemcpyD2D) d2d_raw.push_back(iv);
        if (iv.start >= lo && iv.start < hi) {
          if (k == EventKind::kMemcpyH2D) ++s.memcpy_h2d_copies;
          else if (k == EventKind::kMemcpyD2H) ++s.memcpy_d2h_copies;
        }
        if (k == EventKind::kKernel) {
          int8_t& r = reduced[t.ev.name[i].v];
          if (r < 0) {
            const DeviceWorkClass c = ClassifyDeviceWork(trace.str(t.ev.name[i]));
            r = IsReducedPrecision(c.precision) ? 1 : c.precision == KernelPrecision::kUnstated ? 2 : 0;
            matrix[t.ev.name[i].v] = c.matrix ? 1 : 0;
          }
          if (r == 1) reduced_raw.push_back(iv);
        }
        if (k == EventKind::kKernel && iv.start >= lo && iv.start < hi) {
          kernel_us.push_back(t.ev.dur_ns[i] / 1e3);
          // The share is over kernels whose names state a precision: an unstated name (cuBLASLt's
          // nvjet GEMMs, Triton kernels) is no evidence of fp32.
          if (reduced[t.ev.name[i].v] != 2) kernel_ns_total += double(t.ev.dur_ns[i]);
          if (reduced[t.ev.name[i].v] == 1) kernel_ns_reduced += double(t.ev.dur_ns[i]);
          kernel_ns_all += double(t.ev.dur_ns[i]);
          if (matrix[t.ev.name[i].v] == 1) kernel_ns_matrix += double(t.ev.dur_ns[i]);
        }
      }
      continue;
    }
    if (t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      EventKind k = t.ev.kind[i];
      Interval iv{t.ev.start_ns[i], t.end_ns(uint32_t(i))};
      if (int8_t& c = compiled_name[t.ev.name[i].v]; c != 0) {  // a user annotation or an operator
        if (c < 0) c = trace.str(t.ev.name[i]).substr(0, 21) == "Torch-Compiled Region" ? 1 : 0;
        if (c == 1) compiled_raw.push_back(iv);
      }
      if (k == EventKind::kFrameworkOverhead) {
        // The framework's bookkeeping: host time on any trace, never an operator's compute.
        raw[int(StepCategory::kHostCompute)].push_back(iv);
        overhead_raw.push_back(iv);
      } else if (k == EventKind::kInputWait) {
        input_raw.push_back(iv);
        if (iv.start >= lo && iv.start < hi) {
          auto& n = input_names[t.ev.name[i]];
          n.first = SaturatingAdd(n.first, t.ev.dur_ns[i]);  // waits may nest
          ++n.second;
        }
      } else if (!s.cpu_only) {
        if (k == EventKind::kRuntime) {
          std::string_view n = trace.str(t.ev.name[i]);
          const RuntimeCallRole role = call_names.Role(t.ev.name[i], t.ev.dur_ns[i], long_per_step.count(t.ev.name[i]) > 0);
          if (role == RuntimeCallRole::kStartup) {
            startup_raw.push_back(iv);
            if (iv.start >= lo && iv.start < hi) {
              auto& v = startup_names[t.ev.name[i]];
              v.first = SaturatingAdd(v.first, t.ev.dur_ns[i]);
              ++v.second;
            }
          } else if (role == RuntimeCallRole::kBlockingCopy) {
            raw[int(StepCategory::kMemcpy)].push_back(iv);
          } else if (role == RuntimeCallRole::kSync) {
            sync_raw.push_back(iv);
          } else if (role == RuntimeCallRole::kAllocator) {
            raw[int(StepCategory::kHostCompute)].push_back(iv);  // the driver managing memory
            allocator_raw.push_back(iv);
          } else if (role == RuntimeCallRole::kQuery) {
            raw[int(StepCategory::kHostCompute)].push_back(iv);  // asks, launches nothing
          } else {
            raw[int(StepCategory::kKernelLaunch)].push_back(iv);
            // A kernel launch: by name (cudaLaunchKernel, hipLaunchKernel, cuLaunchKernel), or any
            // runtime call whose correlation id reaches a kernel (MTIA's runFunction, XPU enqueues).
            bool launch = IsKernelLaunchName(n) ||
                          (t.ev.corr[i] != 0 && kernel_corrs.count(t.ev.corr[i]));
            // A launch that loaded its kernel's code is start-up, not what a launch costs.
            const bool loaded_code = std::binary_search(
                first_calls_sorted.begin(), first_calls_sorted.end(), iv,
                [](const Interval& a, const Interval& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
            if (launch && iv.start >= lo && iv.start < hi && iv.end > iv.start && !loaded_code)
              launch_us.push_back(t.ev.dur_ns[i] / 1e3);
            // Launches by name that carry a correlation id, and those whose kernel was recorded.
            if (IsKernelLaunchName(n) && t.ev.corr[i] != 0 && iv.start >= lo && iv.start < hi) {
              ++s.kernel_launches;
              if (kernel_corrs.count(t.ev.corr[i])) ++s.kernel_launches_recorded;
            }
          }
        } else if (k == EventKind::kSync) {
          sync_raw.push_back(iv);
        } else if (k == EventKind::kUserAnnotation) {
          annotation_raw.push_back(iv);  // a container: what ran inside it decides
        } else if (k == EventKind::kCollectiveWait) {
          peer_raw.push_back(iv);
        } else if (k == EventKind::kFrameworkOp || k == EventKind::kPythonFunction || k == EventKind::kCollective) {
          raw[int(StepCategory::kHostCompute)].push_back(iv);
        }
      }
    }
    if (s.cpu_only) {
      // Host collectives (gloo, c10d): the wait for the other ranks, where no operator runs.
      for (size_t i = 0; i < t.ev.size(); ++i) {
        const Interval iv{t.ev.start_ns[i], t.end_ns(uint32_t(i))};
        if (t.ev.kind[i] == EventKind::kCollective) raw[int(StepCategory::kCollectives)].push_back(iv);
        else if (t.ev.kind[i] == EventKind::kCollectiveWait) peer_raw.push_back(iv);
        else if (t.ev.kind[i] == EventKind::kPythonFunction) python_raw.push_back(iv);
        else if (t.ev.kind[i] == EventKind::kUserAnnotation) annotation_raw.push_back(iv);  // a container
      }
      // Operators' own work is the CPU's compute; their dispatch (wrappers around other ops,
      // tiny ops) is host overhead (cpu_op_work.h).
      CpuOpPieces pieces = TimelineToCpuOpPieces(t, is_step, [&](int64_t b, int64_t e) {
        if (b >= lo && b < hi) {
          top_ns += e - b;
          ++top_count;
        }
      });
      for (const Interval& iv : pieces.dispatch)
        if (iv.start >= lo && iv.start < hi) tiny_ns += iv.end - iv.start;
      auto& dc = raw[int(StepCategory::kDeviceCompute)];
      dc.insert(dc.end(), pieces.work.begin(), pieces.work.end());
      auto& hc = raw[int(StepCategory::kHostCompute)];
      hc.insert(hc.end(), pieces.dispatch.begin(), pieces.dispatch.end());
    }
  }
  raw[int(StepCategory::kInput)] = input_raw;

  Collected col;
  for (int c = 0; c < kStepCategoryCount; ++c) col.sets[c] = MakeIntervalSet(std::move(raw[c]));
  col.input_wait = MakeIntervalSet(std::move(input_raw));
  col.device_busy = MakeIntervalSet(std::move(busy_raw));

  // Exclusive attribution by priority.
  static constexpr StepCategory kCpuPriority[] = {StepCategory::kInput, StepCategory::kDeviceCompute,
                                                  StepCategory::kCollectives, StepCategory::kHostCompute};
  IntervalSet exclusive[kStepCategoryCount];
  IntervalSet claimed;
  auto assign = [&](StepCategory c) {
    exclusive[int(c)] = Subtract(col.sets[int(c)], claimed);
    claimed = Union(claimed, col.sets[int(c)]);
  };
  // Causes that go to `other` and outrank the host categories (see the header).
  IntervalSet sync_x, queued_x, startup_x, untraced_x, peer_x;
  IntervalSet short_gap_x;  // host_compute's gaps under kUntracedGapNs with nothing recorded
  // The steps themselves contain what runs in them: time inside a step with nothing recorded is
  // the host's, untraced (long gaps) or overhead between operators (short ones).
  for (const StepWindow& w : windows.steps) annotation_raw.push_back({w.start_ns, w.end_ns});
  // Operators on lines a profiler derived (TF1's op-level lanes: an op from launch to completion)
  // record something there: a gap they cover is not untraced, whatever its category. (Derived
  // lines of bookkeeping alone, such as the profiler's own spans, record nothing of the job.)
  std::vector<Interval> derived_raw;
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kDerived)
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.dur_ns[i] > 0 && t.ev.kind[i] == EventKind::kFrameworkOp)
          derived_raw.push_back({t.ev.start_ns[i], t.end_ns(uint32_t(i))});
  const IntervalSet derived = MakeIntervalSet(std::move(derived_raw));
  auto claim_other = [&](IntervalSet set, IntervalSet* mine) {
    *mine = Subtract(set, claimed);
    claimed = Union(claimed, set);
    exclusive[int(StepCategory::kOther)] = Union(exclusive[int(StepCategory::kOther)], *mine);
  };
  if (s.cpu_only) {
    claim_other(MakeIntervalSet(first_call_raw), &startup_x);
    for (auto c : kCpuPriority) assign(c);
    claim_other(MakeIntervalSet(std::move(peer_raw)), &peer_x);
    // Time between operators: Python where the profiler recorded frames, else framework overhead
    // when short; a long gap with nothing recorded is host time the trace does not explain.
    IntervalSet gaps = Subtract(Subtract(MakeIntervalSet(std::move(annotation_raw)), claimed), derived);
    IntervalSet python = Intersect(gaps, MakeIntervalSet(std::move(python_raw)));
    gaps = Subtract(gaps, python);
    // A Horovod timeline records Horovod's phases alone: no gap between them, however short, is
    // framework overhead it shows.
    IntervalSet long_gaps = FrameworkOf(trace, worker) == Framework::kHorovod ? gaps : LongGaps(gaps, kUntracedGapNs);
    short_gap_x = Subtract(gaps, long_gaps);
    exclusive[int(StepCategory::kHostCompute)] =
        Union(exclusive[int(StepCategory::kHostCompute)], Union(python, short_gap_x));
    claimed = Union(claimed, Union(python, Subtract(gaps, long_gaps)));
    claim_other(long_gaps, &untraced_x);
  } else {
    for (auto c : {StepCategory::kDeviceCompute, StepCategory::kCollectives, StepCategory::kMemcpy}) assign(c);
    const IntervalSet sync_set = MakeIntervalSet(std::move(sync_raw));
    claim_other(sync_set, &sync_x);
    claim_other(MakeIntervalSet(std::move(peer_raw)), &peer_x);
    IntervalSet host_busy = Union(Union(col.sets[int(StepCategory::kHostCompute)], col.sets[int(StepCategory::kKernelLaunch)]),
                                  Union(col.input_wait, sync_set));
    claim_other(QueuedGaps(edges, col.device_busy, host_busy), &queued_x);
    for (const Interval& iv : first_call_raw) startup_raw.push_back(iv);
    claim_other(MakeIntervalSet(std::move(startup_raw)), &startup_x);
    for (auto c : {StepCategory::kInput, StepCategory::kKernelLaunch, StepCategory::kHostCompute}) assign(c);
    // Gaps inside host annotations: short ones are framework/Python overhead between
    // operators; long ones are host time the profiler did not record. With no host event at
    // all, every gap is unrecorded: nothing shows overhead there.
    IntervalSet gaps = Subtract(Subtract(MakeIntervalSet(std::move(annotation_raw)), claimed), derived);
    IntervalSet long_gaps = s.no_host_events || FrameworkOf(trace, worker) == Framework::kHorovod ? gaps : LongGaps(gaps, kUntracedGapNs);
    IntervalSet short_gaps = Subtract(gaps, long_gaps);
    short_gap_x = short_gaps;
    exclusive[int(StepCategory::kHostCompute)] = Union(exclusive[int(StepCategory::kHostCompute)], short_gaps);
    claimed = Union(claimed, short_gaps);
    claim_other(long_gaps, &untraced_x);
  }
  // Time no category claims (the steps' gaps are claimed above: what is left lies outside any
  // step's recorded span, e.g. device idle the step windows do not cover).
  const StepCategory unclaimed = StepCategory::kOther;

  // Finer splits, inside the exclusive device-compute and memcpy time.
  const IntervalSet dc16 = Intersect(exclusive[int(StepCategory::kDeviceCompute)], MakeIntervalSet(std::move(reduced_raw)));
  IntervalSet mem_left = exclusive[int(StepCategory::kMemcpy)];
  IntervalSet by_dir[3], own_dir[2];  // own_dir: to and from the device, each its own copies' time
  std::vector<Interval>* dir_raw[3] = {&h2d_raw, &d2h_raw, &d2d_raw};
  for (int d = 0; d < 3; ++d) {
    IntervalSet own = MakeIntervalSet(std::move(*dir_raw[d]));
    by_dir[d] = Intersect(mem_left, own);
    mem_left = Subtract(mem_left, by_dir[d]);
    if (d < 2) own_dir[d] = std::move(own);
  }
  const IntervalSet both_ways = Intersect(own_dir[0], own_dir[1]);
  IntervalSet cpu_ops_x, reads_x;
  if (!s.cpu_only) {
    HostCpuOps cpu_ops = TraceToHostCpuOps(trace, worker, lo, hi, !s.device_missing);
    cpu_ops_x = Intersect(exclusive[int(StepCategory::kHostCompute)], cpu_ops.time);
    s.host_cpu_op_names = std::move(cpu_ops.top);
    s.host_cpu_ops_by_name = cpu_ops.judged_by_name;
    reads_x = Intersect(exclusive[int(StepCategory::kHostCompute)], cpu_ops.device_reads);
    s.host_device_read_names = std::move(cpu_ops.read_top);
  }
  // The host's own time (operators, launches) spent inside torch.compile's regions.
  const IntervalSet in_compiled_x =
      Intersect(Union(exclusive[int(StepCategory::kHostCompute)], exclusive[int(StepCategory::kKernelLaunch)]),
                MakeIntervalSet(std::move(compiled_raw)));
  const IntervalSet allocator_x = Intersect(exclusive[int(StepCategory::kHostCompute)], MakeIntervalSet(std::move(allocator_raw)));
  const IntervalSet overhead_x = Intersect(exclusive[int(StepCategory::kHostCompute)], MakeIntervalSet(std::move(overhead_raw)));
  double own_ns[2] = {0, 0}, both_ns = 0;  // each direction's own copy time; both at once
  double dc16_ns = 0, dir_ns[3] = {0, 0, 0}, comm_ns = 0, overhead_ns = 0, cpu_ops_ns = 0, reads_ns = 0, in_compiled_ns = 0, allocator_ns = 0;

  const size_t n = windows.steps.size();
  s.step_count = int(n);
  s.per_step_category_ms.assign(n, std::vector<double>(kStepCategoryCount, 0.0));
  double input_wait_ns = 0, busy_ns = 0, total_ns = 0;
  double sync_ns = 0, queued_ns = 0, startup_ns = 0, untraced_ns = 0, peer_ns = 0, short_gap_ns = 0;
  for (size_t w = 0; w < n; ++w) {
    const StepWindow& sw = windows.steps[w];
    double dur = double(sw.dur_ns());
    double claimed_ns = 0;
    for (int c = 0; c < kStepCategoryCount; ++c) {
      double v = double(LengthWithin(exclusive[c], sw.start_ns, sw.end_ns));
      s.per_step_category_ms[w][c] = v / 1e6;
      claimed_ns += v;
    }
    s.per_step_category_ms[w][int(unclaimed)] += std::max(0.0, dur - claimed_ns) / 1e6;
    s.step_ms.push_back(dur / 1e6);
    s.step_numbers.push_back(sw.number);
    input_wait_ns += double(LengthWithin(col.input_wait, sw.start_ns, sw.end_ns));
    dc16_ns += double(LengthWithin(dc16, sw.start_ns, sw.end_ns));
    overhead_ns += double(LengthWithin(overhead_x, sw.start_ns, sw.end_ns));
    cpu_ops_ns += double(LengthWithin(cpu_ops_x, sw.start_ns, sw.end_ns));
    reads_ns += double(LengthWithin(reads_x, sw.start_ns, sw.end_ns));
    in_compiled_ns += double(LengthWithin(in_compiled_x, sw.start_ns, sw.end_ns));
    allocator_ns += double(LengthWithin(allocator_x, sw.start_ns, sw.end_ns));
    comm_ns += double(LengthWithin(col.sets[int(StepCategory::kCollectives)], sw.start_ns, sw.end_ns));
    for (int d = 0; d < 3; ++d) dir_ns[d] += double(LengthWithin(by_dir[d], sw.start_ns, sw.end_ns));
    for (int d = 0; d < 2; ++d) own_ns[d] += double(LengthWithin(own_dir[d], sw.start_ns, sw.end_ns));
    both_ns += double(LengthWithin(both_ways, sw.start_ns, sw.end_ns));
    busy_ns += double(LengthWithin(col.device_busy, sw.start_ns, sw.end_ns));
    sync_ns += double(LengthWithin(sync_x, sw.start_ns, sw.end_ns));
    queued_ns += double(LengthWithin(queued_x, sw.start_ns, sw.end_ns));
    startup_ns += double(LengthWithin(startup_x, sw.start_ns, sw.end_ns));
    untraced_ns += double(LengthWithin(untraced_x, sw.start_ns, sw.end_ns));
    short_gap_ns += double(LengthWithin(short_gap_x, sw.start_ns, sw.end_ns));
    peer_ns += double(LengthWithin(peer_x, sw.start_ns, sw.end_ns));
    total_ns += dur;
  }
  for (int c = 0; c < kStepCategoryCount; ++c) {
    double sum = 0;
    for (size_t w = 0; w < n; ++w) sum += s.per_step_category_ms[w][c];
    s.category_ms[c] = sum / double(n);
  }
  s.median_step_ms = Median(s.step_ms);
  s.p90_step_ms = Percentile(s.step_ms, 90);
  s.max_step_ms = *std::max_element(s.step_ms.begin(), s.step_ms.end());
  s.mean_step_ms = total_ns / double(n) / 1e6;
  if (s.has_steps && s.step_count >= kMinStepsForOutliers)
    for (size_t w = 0; w < n; ++w)
      if (s.step_ms[w] > s.median_step_ms * kOutlierStepFactor) s.outlier_steps.push_back(w);
  s.slow_only_events = TraceToSlowOnlyEvents(trace, worker, windows, s.outlier_steps);
  s.input_wait_ms = input_wait_ns / double(n) / 1e6;
  s.sync_wait_ms = sync_ns / double(n) / 1e6;
  s.device_queued_ms = queued_ns / double(n) / 1e6;
  s.startup_ms = startup_ns / double(n) / 1e6;
  s.untraced_host_ms = untraced_ns / double(n) / 1e6;
  s.host_short_gap_ms = short_gap_ns / double(n) / 1e6;
  s.peer_wait_ms = peer_ns / double(n) / 1e6;
  // The device's own span within the steps, and where host and device activity end.
  {
    IntervalSet in_steps = Intersect(col.device_busy, MakeIntervalSet({{lo, hi}}));
    if (!in_steps.empty()) {
      double span = double(in_steps.back().end - in_steps.front().start);
      s.device_span_busy_pct = span > 0 ? 100.0 * double(TotalLength(in_steps)) / span : 0;
      s.device_span_ms = span / 1e6;
      s.device_end_ms = (in_steps.back().end - lo) / 1e6;
    }
    int64_t host_end = lo;
    for (const auto& t : trace.timelines)
      if (t.worker == worker && t.kind == TimelineKind::kHostThread)
        for (size_t i = 0; i < t.ev.size(); ++i)
          if (t.ev.kind[i] != EventKind::kStepMarker && t.ev.start_ns[i] < hi)
            host_end = std::max(host_end, std::min(hi, t.end_ns(uint32_t(i))));
    s.host_end_ms = (host_end - lo) / 1e6;
  }
  s.device_compute_16bit_ms = dc16_ns / double(n) / 1e6;
  s.collective_total_ms = comm_ns / double(n) / 1e6;
  s.device_compute_32bit_ms = std::max(0.0, s.category_ms[int(StepCategory::kDeviceCompute)] - s.device_compute_16bit_ms);
  s.memcpy_h2d_ms = dir_ns[0] / double(n) / 1e6;
  s.memcpy_d2h_ms = dir_ns[1] / double(n) / 1e6;
  s.memcpy_d2d_ms = dir_ns[2] / double(n) / 1e6;
  s.memcpy_h2d_own_ms = own_ns[0] / double(n) / 1e6;
  s.memcpy_d2h_own_ms = own_ns[1] / double(n) / 1e6;
  s.memcpy_both_ways_ms = both_ns / double(n) / 1e6;
  s.memcpy_other_ms = std::max(0.0, s.category_ms[int(StepCategory::kMemcpy)] - s.memcpy_h2d_ms - s.memcpy_d2h_ms - s.memcpy_d2d_ms);
  s.device_busy_pct = total_ns > 0 ? 100.0 * busy_ns / total_ns : 0;
  s.device_launched_ms = double(TotalLength(MakeIntervalSet(std::move(launched_raw)))) / double(n) / 1e6;
  for (const auto& t : trace.timelines)  // each timeline is sorted by start
    if (t.worker == worker && (t.kind == TimelineKind::kHostThread || t.kind == TimelineKind::kDeviceStream)) {
      auto b = std::lower_bound(t.ev.start_ns.begin(), t.ev.start_ns.end(), lo);
      s.events_in_steps += std::lower_bound(b, t.ev.start_ns.end(), hi) - b;
    }
  s.kernels_per_step = int64_t(kernel_us.size() / n);
  s.median_kernel_us = Median(kernel_us);
  s.median_launch_us = Median(launch_us);
  s.tiny_op_share_pct = top_ns > 0 ? 100.0 * double(tiny_ns) / double(top_ns) : 0;
  s.framework_overhead_ms = overhead_ns / double(n) / 1e6;
  s.host_cpu_op_ms = cpu_ops_ns / double(n) / 1e6;
  s.host_device_read_ms = reads_ns / double(n) / 1e6;
  s.host_in_compiled_ms = in_compiled_ns / double(n) / 1e6;
  s.host_allocator_ms = allocator_ns / double(n) / 1e6;
  s.top_level_ops_per_step = top_count / int64_t(n);
  s.fp16_kernel_pct = kernel_ns_total > 0 ? 100.0 * kernel_ns_reduced / kernel_ns_total : 0;
  s.matrix_kernel_pct = kernel_ns_all > 0 ? 100.0 * kernel_ns_matrix / kernel_ns_all : 0;
  for (const auto& d : trace.devices)
    if (d.worker == worker && HasMatrixUnits(d)) s.tensor_core_capable = true;

  for (const auto& [name, v] : input_names) {
    TopEvent e;
    e.name = std::string(trace.str(name));
    e.total_ms = double(v.first) / 1e6;
    e.count = v.second;
    e.share_pct = total_ns > 0 ? 100.0 * double(v.first) / total_ns : 0;
    s.input_wait_events.push_back(std::move(e));
  }
  for (const auto& [name, v] : startup_names)
    s.startup_events.push_back({std::string(trace.str(name)), double(v.first) / 1e6, v.second,
                                total_ns > 0 ? 100.0 * double(v.first) / total_ns : 0});
  std::sort(s.startup_events.begin(), s.startup_events.end(),
            [](const TopEvent& a, const TopEvent& b) { return a.total_ms > b.total_ms; });
  std::sort(s.input_wait_events.begin(), s.input_wait_events.end(),
            [](const TopEvent& a, const TopEvent& b) { return a.total_ms > b.total_ms; });
  s.top_kernels = TotalsByName(trace, TotalsScope::kDeviceKernels, worker);
  s.top_ops = TotalsByName(trace, TotalsScope::kHostOps, worker);
  if (s.top_kernels.size() > kTopEvents) s.top_kernels.resize(kTopEvents);
  if (s.top_ops.size() > kTopEvents) s.top_ops.resize(kTopEvents);
  return s;
}

}  // namespace stepdoctor
