#include "stepdoctor/analysis/step_model.h"

#include <algorithm>
#include <unordered_map>

#include "stepdoctor/analysis/batch_scaling.h"
#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/trace_to_host_cpu_ops.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"  // kUntracedGapNs
#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {

// Cuts [lo, hi) into segments: input waits first, then waits on the device, then start-up calls;
// the rest is the host's own work. REQUIRED: the sets are sorted and disjoint (MakeIntervalSet).
std::vector<HostSegment> CutHostPath(int64_t lo, int64_t hi, const IntervalSet& input, const IntervalSet& sync,
                                     const IntervalSet& startup, const IntervalSet& untraced, const IntervalSet& cpu) {
  const IntervalSet window = MakeIntervalSet({{lo, hi}});
  const IntervalSet in = Intersect(input, window);
  const IntervalSet sy = Subtract(Intersect(sync, window), in);
  const IntervalSet st = Subtract(Subtract(Intersect(startup, window), in), sy);
  const IntervalSet un = Subtract(Subtract(Subtract(Intersect(untraced, window), in), sy), st);
  const IntervalSet cw = Subtract(Subtract(Subtract(Subtract(Intersect(cpu, window), in), sy), st), un);
  std::vector<HostSegment> marked;
  for (const auto& iv : in) marked.push_back({iv.start, iv.end, HostPart::kInput});
  for (const auto& iv : sy) marked.push_back({iv.start, iv.end, HostPart::kSync});
  for (const auto& iv : st) marked.push_back({iv.start, iv.end, HostPart::kStartup});
  for (const auto& iv : un) marked.push_back({iv.start, iv.end, HostPart::kUntraced});
  for (const auto& iv : cw) marked.push_back({iv.start, iv.end, HostPart::kCpuWork});
  std::sort(marked.begin(), marked.end(), [](const HostSegment& a, const HostSegment& b) { return a.start_ns < b.start_ns; });
  std::vector<HostSegment> out;
  int64_t t = lo;
  for (const auto& m : marked) {
    if (m.start_ns > t) out.push_back({t, m.start_ns, HostPart::kWork});
    out.push_back(m);
    t = m.end_ns;
  }
  if (t < hi) out.push_back({t, hi, HostPart::kWork});
  return out;
}

// Splits segments at every step boundary, so each lies within one step (or a gap between steps).
std::vector<HostSegment> SplitAtSteps(const std::vector<HostSegment>& in, const std::vector<StepWindow>& steps) {
  std::vector<int64_t> cuts;
  for (const auto& s : steps) {
    cuts.push_back(s.start_ns);
    cuts.push_back(s.end_ns);
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<HostSegment> out;
  auto c = cuts.begin();
  for (HostSegment seg : in) {
    while (c != cuts.end() && *c <= seg.start_ns) ++c;
    for (; c != cuts.end() && *c < seg.end_ns; ++c) {
      out.push_back({seg.start_ns, *c, seg.part});
      seg.start_ns = *c;
    }
    out.push_back(seg);
  }
  return out;
}

}  // namespace

const char* HostPartName(HostPart p) {
  switch (p) {
    case HostPart::kWork: return "work";
    case HostPart::kInput: return "input";
    case HostPart::kSync: return "sync";
    case HostPart::kStartup: return "startup";
    case HostPart::kUntraced: return "untraced";
    case HostPart::kCpuWork: return "cpu_work";
  }
  return "?";
}

StepModel TraceToStepModel(const Trace& trace, WorkerId worker, const StepWindows& windows, DeviceCoverage device,
                           const std::vector<Interval>* first_calls) {
  RuntimeCallNames call_names(trace.strings);  // each name judged once
  StepModel m;
  if (windows.steps.empty()) return m;
  m.steps = windows.steps;
  const int64_t lo = m.lo(), hi = m.hi();
  m.cpu_only = device == DeviceCoverage::kCpuOnly;
  m.device_missing = device == DeviceCoverage::kMissing;

  // Host runtime calls: launch ends by correlation id, and long calls counted by name (a long call
  // recurring each step is a wait on the device, a single one is start-up).
  std::unordered_map<int64_t, int64_t> launch_end;
  std::unordered_map<StringId, int> long_calls;
  std::vector<int8_t> copy_call(trace.strings.size(), -1);  // by name: a copy call (-1 not yet judged)
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kRuntime) continue;
      // A copy call that blocks enqueues its copy as it begins and returns once the copy is done:
      // the host's wait in it (a kSync segment) is for work it launched itself, so the copy is
      // keyed just before the call, not at its end.
      if (t.ev.corr[i] != 0) {
        int8_t& copy = copy_call[t.ev.name[i].v];  // each name judged once
        if (copy < 0) copy = int8_t(trace.str(t.ev.name[i]).find("Memcpy") != std::string_view::npos);
        const bool blocking =
            copy && call_names.Role(t.ev.name[i], t.ev.dur_ns[i], false) == RuntimeCallRole::kBlockingCopy;
        launch_end[t.ev.corr[i]] = blocking ? t.ev.start_ns[i] - 1 : t.end_ns(uint32_t(i));
      }
      if (t.ev.dur_ns[i] > kOneOffRuntimeNs && t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi) ++long_calls[t.ev.name[i]];
    }
  }
  const int n_steps = int(m.steps.size());
  const bool tf_device_job = FrameworkOf(trace, worker) == Framework::kTensorFlow && !m.cpu_only;
  std::vector<Interval> input, sync, startup, recorded;  // recorded: any host event with a duration
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const Interval iv{t.ev.start_ns[i], t.end_ns(uint32_t(i))};
      if (iv.end <= lo || iv.start >= hi) continue;
      const EventKind k = t.ev.kind[i];
      // Step markers and annotations are containers: what ran inside them is what was recorded.
      if (k != EventKind::kStepMarker && k != EventKind::kUserAnnotation && iv.end > iv.start) recorded.push_back(iv);
      if (k == EventKind::kInputWait) {
        input.push_back(iv);
      } else if (k == EventKind::kSync || (k == EventKind::kCollective && tf_device_job)) {
        // TensorFlow's collective ops (NcclAllReduce, CollectiveReduce) are asynchronous kernels:
        // their span runs until the device's collective completes, a wait, not the executor's work.
        sync.push_back(iv);
      } else if (k == EventKind::kRuntime && !m.cpu_only) {
        auto it = long_calls.find(t.ev.name[i]);
        const bool recurs = it != long_calls.end() && RecursEachStep(it->second, n_steps);
        switch (call_names.Role(t.ev.name[i], t.ev.dur_ns[i], recurs)) {
          case RuntimeCallRole::kSync:
          case RuntimeCallRole::kBlockingCopy: sync.push_back(iv); break;
          case RuntimeCallRole::kStartup: startup.push_back(iv); break;
          case RuntimeCallRole::kLaunch:
          case RuntimeCallRole::kAllocator:
          case RuntimeCallRole::kQuery: break;
        }
      }
    }
  }
  // Slow first calls of an operator (autotuning, lazy loading) are start-up, as in the breakdown.
  if (first_calls) startup.insert(startup.end(), first_calls->begin(), first_calls->end());
  else
    for (const FirstCall& f : SlowFirstCalls(trace, worker, lo, hi)) startup.push_back(f.iv);
  // Long gaps with no host event at all (untraced Python, time outside the traced process).
  std::vector<Interval> untraced;
  for (const Interval& g : Subtract(MakeIntervalSet({{lo, hi}}), MakeIntervalSet(std::move(recorded))))
    if (g.end - g.start >= kUntracedGapNs) untraced.push_back(g);
  PerItemWork per_item = TraceToPerItemWork(trace, worker, m.cpu_only);
  m.host = SplitAtSteps(CutHostPath(lo, hi, MakeIntervalSet(std::move(input)), MakeIntervalSet(std::move(sync)),
                                    MakeIntervalSet(std::move(startup)), MakeIntervalSet(std::move(untraced)),
                                    m.cpu_only ? std::move(per_item.cpu_scaled)
                                               : TraceToHostCpuOps(trace, worker, lo, hi, !m.device_missing).time),
                        m.steps);
  double input_ns = 0, work_ns = 0, untraced_ns = 0;
  for (const auto& h : m.host) {
    if (h.part == HostPart::kInput) input_ns += double(h.end_ns - h.start_ns);
    if (h.part == HostPart::kWork) work_ns += double(h.end_ns - h.start_ns);
    if (h.part == HostPart::kUntraced) untraced_ns += double(h.end_ns - h.start_ns);
  }
  m.untraced_ms_per_step = untraced_ns / n_steps / 1e6;
  m.input_ms_per_step = input_ns / n_steps / 1e6;
  m.work_ms_per_step = work_ns / n_steps / 1e6;

  // Device work: what starts within the steps, and what the steps launched that runs after them.
  std::unordered_map<StringId, DeviceWorkClass> classes;  // names repeat: classify each once
  std::unordered_map<uint64_t, CollectiveCall> comm;      // what the trace records of each collective
  for (CollectiveCall& c : TraceToCollectiveCalls(trace, worker)) comm.emplace(CollectiveCallKey(c.timeline, c.event), std::move(c));
  for (uint32_t ti = 0; ti < trace.timelines.size(); ++ti) {
    const Timeline& t = trace.timelines[ti];
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    const uint32_t stream = m.stream_count++;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      if (!IsDeviceActivity(k)) continue;
      DeviceOp op;
      op.start_ns = t.ev.start_ns[i];
      op.dur_ns = t.ev.dur_ns[i];
      op.stream = stream;
      op.name = t.ev.name[i];
      op.corr = t.ev.corr[i];
      if (t.ev.corr[i] != 0)
        if (auto l = launch_end.find(t.ev.corr[i]); l != launch_end.end()) op.launch_ns = l->second;
      const bool launched_here = op.launch_ns != DeviceOp::kNoLaunch && op.launch_ns >= lo && op.launch_ns < hi;
      if (!(op.start_ns >= lo && op.start_ns < hi) && !launched_here) continue;
      if (op.launch_ns > op.start_ns) op.launch_ns = op.start_ns;  // clocks disagree: the device's start bounds it
      if (k == EventKind::kKernel) {
        auto c = classes.find(t.ev.name[i]);
        if (c == classes.end()) c = classes.emplace(t.ev.name[i], ClassifyDeviceWork(trace.str(t.ev.name[i]))).first;
        op.precision = c->second.precision;
        op.tensor_core = c->second.tensor_core;
        op.matrix = c->second.matrix;
      }
      op.role = k == EventKind::kKernel       ? DeviceWorkRole::kCompute
                : k == EventKind::kCollective ? DeviceWorkRole::kCollective
                : k == EventKind::kMemset     ? DeviceWorkRole::kMemset
                                              : DeviceWorkRole::kCopy;
      op.h2d = k == EventKind::kMemcpyH2D;
      if (op.role == DeviceWorkRole::kCollective)
        if (auto c = comm.find(CollectiveCallKey(ti, uint32_t(i))); c != comm.end()) {
          op.comm_kind = c->second.kind;
          op.comm_ranks = c->second.group_size;
          op.comm_bytes = c->second.first_of_call ? c->second.bytes : 0;
        }
      if (op.launch_ns != DeviceOp::kNoLaunch) {
        ++m.ops_with_launch;
        // Launched from the optimizer's step (or zeroing, accumulating gradients): per parameter.
        const auto& pp = per_item.per_param;
        auto it = std::upper_bound(pp.begin(), pp.end(), op.launch_ns, [](int64_t x, const Interval& v) { return x < v.start; });
        op.per_param = it != pp.begin() && op.launch_ns < std::prev(it)->end;
      }
      m.device.push_back(op);
    }
  }
  for (const auto& d : trace.devices) {
    if (d.worker != worker) continue;
    if (HasMatrixUnits(d)) m.tensor_core_device = true;
    if (d.kind == DeviceKind::kGpu) {
      ++m.gpus_on_host;
      if (m.device_name.empty()) m.device_name = d.name;
    }
  }
  std::sort(m.device.begin(), m.device.end(), [](const DeviceOp& a, const DeviceOp& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.stream < b.stream;
  });
  return m;
}

}  // namespace stepdoctor
