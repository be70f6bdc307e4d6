#include "stepdoctor/analysis/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <queue>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/statistics.h"

namespace stepdoctor {
namespace {

// What one graph launch costs the host per step once launches are fused (a cudaGraphLaunch of a
// captured step measures 10-30 us on current drivers).
constexpr int64_t kOneLaunchNs = 20'000;
// The pessimistic end of the launch fix: this share of the host's own work remains (Python
// between compiled regions, graph breaks, optimizer steps outside the graph).
constexpr double kLaunchWorkLeftHigh = 0.5;
// Kernel speed-ups from 16-bit math, as (low, high) factors by kind of kernel: matrix kernels
// (GEMM, convolution) move to the 16-bit tensor-core path, twice TF32's peak and many times
// FP32's on NVIDIA's Volta-to-Hopper data sheets, of which memory traffic leaves 2-3x in
// practice; TF32 kernels gain at most the 2x peak ratio; memory-bound kernels move half the bytes.
constexpr double kAmpMatrixFp32[2] = {2.0, 3.0};
constexpr double kAmpMatrixTf32[2] = {1.5, 2.0};
constexpr double kAmpMemoryBound[2] = {1.0, 1.6};
// Compute kernels running beside communication kernels lose the SMs and memory bandwidth NCCL
// takes (it runs on a few SMs per channel): the pessimistic end of the overlap fix slows them by
// this much, the point by half of it.
constexpr double kOverlapComputeSlowdown = 0.15;
// The pessimistic end when the training process and loader workers share few cores: packing is
// never perfect (context switches, the GIL, cache misses).
constexpr double kSharedCoresSlack = 0.10;
// The pessimistic end of the CPU-work fix: this share of the operators' CPU time stays on the
// step's path (the input pipeline's workers share the cores, or the device's version of the work
// is not free).
constexpr double kCpuWorkLeftHigh = 0.5;
// The stalls fix declines where this share of the slow steps' extra time or more is input wait
// (the share step_time_outliers names a cause at).
constexpr double kStallInputCauseShare = 0.5;

struct Edit {
  double input_scale = 1;          // input waits x this
  double work_scale = 1;           // the host's own work x this
  double cpu_work_scale = 1;       // operators computing on CPU tensors (HostPart::kCpuWork) x this
  int64_t work_floor_ns = 0;       // added once at each step's start (the launch that remains)
  double (*device_factor)(const DeviceOp&, int which) = nullptr;  // speed-up of an op (>= 1)
  int which = 0;                   // passed to device_factor: 0 low, 1 high, 2 mid
  // An op's observed wait for a communication kernel on another stream (it started as one
  // ended) is dropped: what the overlap fix removes. Its delay after that end stays.
  bool drop_comm_waits = false;
};

struct Replayed {
  std::vector<double> step_ms;
  double work_ms = 0, input_ms = 0, sync_ms = 0, startup_ms = 0, untraced_ms = 0, device_busy_ms = 0;  // per step
};

// When an op becomes ready on the host's clock: its launch call's end, or its own start where it
// began inside that call (a blocking copy runs while its call waits; a kernel may start before
// its launch call returns).
int64_t Key(const DeviceOp& op) {
  return op.launch_ns != DeviceOp::kNoLaunch ? std::min(op.launch_ns, op.start_ns) : op.start_ns;
}

Replayed Replay(const StepModel& m, const Edit& e) {
  Replayed r;
  const int64_t lo = m.lo(), hi = m.hi();
  const size_t n = m.device.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return Key(m.device[a]) < Key(m.device[b]); });
  // The extra delay each op showed beyond its launch and its stream's previous op.
  std::vector<int64_t> lat(n, 0);
  {
    std::vector<int64_t> comm_ends;  // sorted ends of communication ops, for drop_comm_waits
    if (e.drop_comm_waits)
      for (const auto& op : m.device)
        if (op.role == DeviceWorkRole::kCollective) comm_ends.push_back(op.start_ns + op.dur_ns);
    std::sort(comm_ends.begin(), comm_ends.end());
    std::vector<int64_t> prev_end(m.stream_count, INT64_MIN);
    for (uint32_t i : order) {
      const DeviceOp& op = m.device[i];
      const int64_t ready = std::max(Key(op), prev_end[op.stream]);
      lat[i] = std::max<int64_t>(0, op.start_ns - ready);
      if (lat[i] > 0 && op.role != DeviceWorkRole::kCollective && !comm_ends.empty()) {
        // The latest communication end at or before this op's start, if it came after the op was ready.
        auto it = std::upper_bound(comm_ends.begin(), comm_ends.end(), op.start_ns);
        if (it != comm_ends.begin() && *std::prev(it) > ready) lat[i] = op.start_ns - *std::prev(it);
      }
      prev_end[op.stream] = std::max(prev_end[op.stream], op.start_ns + op.dur_ns);
    }
  }
  const auto& seg = m.host;
  std::vector<int64_t> s2(seg.size()), d2(seg.size());
  int64_t t2 = lo;
  // Maps an original host time to the replay's. REQUIRED: segments before `t` are replayed.
  // A device op that began inside a wait is the work waited for (a blocking copy): it keeps its
  // place in the wait (`inside_wait`); anything else there happens as the wait ends.
  auto map = [&](int64_t t, bool inside_wait = false) -> int64_t {
    if (t < lo) return t;
    auto it = std::upper_bound(seg.begin(), seg.end(), t, [](int64_t x, const HostSegment& h) { return x < h.start_ns; });
    size_t k = size_t(it - seg.begin()) - 1;
    if (t >= seg[k].end_ns) return s2[k] + d2[k] + (t - seg[k].end_ns);  // past the last segment
    if (seg[k].part == HostPart::kSync && !inside_wait) return s2[k] + d2[k];
    const int64_t d = seg[k].end_ns - seg[k].start_ns;
    return s2[k] + int64_t(double(t - seg[k].start_ns) * double(d2[k]) / double(d));
  };
  std::vector<int64_t> free2(m.stream_count, INT64_MIN);
  std::vector<Interval> busy2, own2;  // all replayed device work; the work the steps launched
  busy2.reserve(n);
  using Pending = std::pair<int64_t, int64_t>;  // (original end, replayed end)
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  int64_t done_orig = INT64_MIN, done_new = INT64_MIN;
  // The last step's device work, to carry its spill past the step's end.
  const int64_t last_start = m.steps.back().start_ns;
  int64_t last_end_orig = INT64_MIN, last_end_new = INT64_MIN;
  size_t next = 0;
  auto replay_op = [&](uint32_t i) {
    const DeviceOp& op = m.device[i];
    const int64_t key = Key(op);
    const int64_t start = std::max(map(key, key == op.start_ns), free2[op.stream]) + lat[i];
    const double f = e.device_factor ? e.device_factor(op, e.which) : 1.0;
    const int64_t end = start + int64_t(double(op.dur_ns) / f);
    free2[op.stream] = end;
    busy2.push_back({start, end});
    if (key >= lo && key < hi) own2.push_back({start, end});
    pending.push({op.start_ns + op.dur_ns, end});
    if (key >= last_start) {
      last_end_orig = std::max(last_end_orig, op.start_ns + op.dur_ns);
      last_end_new = std::max(last_end_new, end);
    }
  };
  size_t step = 0;
  double work = 0, input = 0, sync = 0, startup = 0, untraced = 0;
  for (size_t k = 0; k < seg.size(); ++k) {
    const HostSegment& h = seg[k];
    while (next < n && Key(m.device[order[next]]) < h.start_ns) replay_op(order[next++]);
    s2[k] = t2;
    const int64_t d = h.end_ns - h.start_ns;
    int64_t dd = d;
    switch (h.part) {
      case HostPart::kWork: dd = int64_t(double(d) * e.work_scale); break;
      case HostPart::kInput: dd = int64_t(double(d) * e.input_scale); break;
      case HostPart::kCpuWork: dd = int64_t(double(d) * e.cpu_work_scale); break;
      case HostPart::kStartup:
      case HostPart::kUntraced: break;  // unknown work: no fix is known to remove it
      case HostPart::kSync: {
        // The work this wait could have waited for: what was launched before it and ended by its end.
        while (!pending.empty() && pending.top().first <= h.end_ns) {
          done_orig = std::max(done_orig, pending.top().first);
          done_new = std::max(done_new, pending.top().second);
          pending.pop();
        }
        const int64_t latency = std::max<int64_t>(0, h.end_ns - std::max(h.start_ns, done_orig));
        dd = std::max(t2, done_new) + latency - t2;
        break;
      }
    }
    while (step < m.steps.size() && m.steps[step].start_ns < h.start_ns) ++step;
    if (step < m.steps.size() && m.steps[step].start_ns == h.start_ns) dd += e.work_floor_ns;
    d2[k] = dd;
    t2 += dd;
    (h.part == HostPart::kWork || h.part == HostPart::kCpuWork ? work
     : h.part == HostPart::kInput    ? input
     : h.part == HostPart::kSync     ? sync
     : h.part == HostPart::kUntraced ? untraced
                                     : startup) += double(dd);
  }
  while (next < n) replay_op(order[next++]);
  // Step boundaries in the replay; the last step ends when its device work does, less the spill
  // past the step's end the trace itself showed.
  const size_t ns = m.steps.size();
  std::vector<int64_t> b_start(ns), b_end(ns);
  for (size_t i = 0; i < ns; ++i) {
    b_start[i] = map(m.steps[i].start_ns);
    b_end[i] = m.steps[i].end_ns >= hi ? t2 : map(m.steps[i].end_ns);
  }
  if (last_end_new != INT64_MIN) {
    const int64_t spill = std::max<int64_t>(0, last_end_orig - hi);
    b_end[ns - 1] = std::max(b_end[ns - 1], last_end_new - spill);
  }
  // The steps cannot take less than the device needs for the work they launched (the spill
  // credit above assumes the next, unrecorded step's work hides it, which a device-bound replay
  // cannot).
  const int64_t device_floor = b_start[0] + TotalLength(MakeIntervalSet(std::move(own2)));
  if (device_floor > b_end[ns - 1]) {
    // Device-bound: in steady state every step takes its share of the device's work.
    for (size_t i = 0; i < ns; ++i) r.step_ms.push_back(double(device_floor - b_start[0]) / double(ns) / 1e6);
    b_end[ns - 1] = device_floor;
  } else {
    for (size_t i = 0; i < ns; ++i) r.step_ms.push_back(double(b_end[i] - b_start[i]) / 1e6);
  }
  const double per = 1e6 * double(ns);
  r.work_ms = work / per;
  r.input_ms = input / per;
  r.sync_ms = sync / per;
  r.startup_ms = startup / per;
  r.untraced_ms = untraced / per;
  r.device_busy_ms = double(LengthWithin(MakeIntervalSet(std::move(busy2)), b_start[0], b_end[ns - 1])) / per;
  return r;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// A replay on the measured scale. The replay of the trace as recorded misses the measured step by
// up to kReplayMaxErrorPct; a fix's effect is the ratio of two replays, so that error cancels (a
// fix that changes nothing predicts the measured step, never a slowdown). Figures measured
// outside the replay (a batch's load time) are not scaled.
Replayed Calibrated(const StepModel& m, const Edit& e, const Prediction& p) {
  Replayed r = Replay(m, e);
  if (p.model_baseline_ms <= 0 || p.baseline_step_ms <= 0) return r;
  const double k = p.baseline_step_ms / p.model_baseline_ms;
  // The device's work keeps its measured length: steps scaled down stop at it.
  const double floor_ms = r.device_busy_ms;
  for (double& ms : r.step_ms) ms = std::max(ms * k, std::min(ms, floor_ms));
  for (double* ms : {&r.work_ms, &r.input_ms, &r.sync_ms, &r.startup_ms, &r.untraced_ms}) *ms *= k;
  return r;
}

// Speed-up of one op under mixed precision: `which` 0 = the low factor, 1 = the high, 2 = between.
double AmpFactor(const DeviceOp& op, int which) {
  if (op.role != DeviceWorkRole::kCompute || IsReducedPrecision(op.precision)) return 1.0;
  const double* f = op.matrix ? (op.precision == KernelPrecision::kTf32 ? kAmpMatrixTf32 : kAmpMatrixFp32) : kAmpMemoryBound;
  return which == 0 ? f[0] : which == 1 ? f[1] : 0.5 * (f[0] + f[1]);
}

// Under the overlap fix: communication leaves the path (its own time is bounded separately), and
// compute kernels slow down by 0 (`which` 0), kOverlapComputeSlowdown (1) or half of it (2).
double OverlapFactor(const DeviceOp& op, int which) {
  if (op.role == DeviceWorkRole::kCollective) return 1e9;
  if (op.role != DeviceWorkRole::kCompute) return 1.0;
  const double slow = which == 0 ? 0 : which == 1 ? kOverlapComputeSlowdown : kOverlapComputeSlowdown / 2;
  return 1.0 / (1.0 + slow);
}

void FillParts(const Replayed& r, Prediction* p) {
  p->critical_path = {{"device_busy", r.device_busy_ms}, {"host_work", r.work_ms}, {"input", r.input_ms},
                      {"sync", r.sync_ms},               {"startup", r.startup_ms},
                      {"untraced", r.untraced_ms}};
  p->critical_path.erase(std::remove_if(p->critical_path.begin(), p->critical_path.end(),
                                        [](const StepPart& s) { return s.ms < 0.005; }),
                         p->critical_path.end());
  std::sort(p->critical_path.begin(), p->critical_path.end(), [](const StepPart& a, const StepPart& b) { return a.ms > b.ms; });
  const double step = Mean(r.step_ms);
  const double host = r.work_ms + r.input_ms + r.startup_ms + r.untraced_ms;
  p->bound_by = r.device_busy_ms >= 0.9 * step || r.device_busy_ms >= host ? "device" : r.input_ms > r.work_ms ? "input" : "host";
}

void SetPoint(const Replayed& r, Prediction* p) {
  p->predicted = true;
  p->predicted_step_ms = Mean(r.step_ms);
  p->predicted_median_ms = Median(r.step_ms);
  p->low_ms = p->high_ms = p->predicted_step_ms;
  FillParts(r, p);
}

// Widens [low, high] to the replay's tolerance and sets the speed-up.
void Finish(Prediction* p) {
  if (!p->predicted) return;
  p->low_ms = std::min(p->low_ms, p->predicted_step_ms * (1 - kReplayTolerancePct / 100));
  p->high_ms = std::max(p->high_ms, p->predicted_step_ms * (1 + kReplayTolerancePct / 100));
  p->speedup = p->predicted_step_ms > 0 ? p->baseline_step_ms / p->predicted_step_ms : 1;
}

std::string Ms(double ms) { return ms >= 100 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.1f} ms", ms); }

void PredictInput(const StepModel& m, const FixSpec& fix, int cores, Prediction* p) {
  if (m.input_ms_per_step <= 0) {
    p->why_not = "the trace shows no input wait: there is nothing for more loading parallelism to hide";
    return;
  }
  Edit e;
  e.input_scale = 0;
  const Replayed r = Calibrated(m, e, *p);
  SetPoint(r, p);
  p->assumptions.push_back(fmt::format("the input wait ({} per step) disappears: each batch is ready when the step asks for it",
                                       Ms(m.input_ms_per_step)));
  if (fix.workers <= 0) {
    p->assumptions.push_back("enough loader workers and free cores to prepare a batch within one step");
    return;
  }
  if (m.loader_workers) {
    p->assumptions.push_back(
        "the trace already uses loader workers, so it holds only their shortfall, not what a batch costs to load: "
        "taken as keeping up with the given worker count (the optimistic end)");
    p->high_ms = p->baseline_step_ms;
    return;
  }
  if (cores <= 0) {
    p->predicted = false;
    p->why_not = "the number of CPU cores of the machine that ran the job is unknown, and it decides whether "
                 "workers can hide the load: pass --cores N";
    p->assumptions.clear();
    return;
  }
  // The training process loaded each batch itself: its wait is what a batch costs one core.
  const double load = m.input_ms_per_step, work = r.work_ms, t0 = p->predicted_step_ms;
  const int n = fix.workers;
  const double loader = load / std::min(n, cores);
  const double cpu = (work + load) / cores;
  const double point = std::max({t0, loader, cpu});
  p->assumptions.push_back(fmt::format("each of {} workers loads a batch in {} of one core, as the training process did", n, Ms(load)));
  p->assumptions.push_back(fmt::format("the training process keeps one core busy for its {} of host work per step; "
                                       "it and the workers share {} cores",
                                       Ms(work), cores));
  p->low_ms = std::max(t0, load / n);
  if (point > t0) {
    p->bound_by = point == cpu ? "cpu" : "loader";
    p->critical_path.insert(p->critical_path.begin(), StepPart{p->bound_by, point});
    p->predicted_median_ms *= point / t0;
    p->predicted_step_ms = point;
    p->high_ms = point * (1 + kSharedCoresSlack);
  }
}

void PredictLaunch(const StepModel& m, Prediction* p) {
  if (m.compiled) {
    p->why_not = "the step already runs compiled (CUDA/HIP graphs, torch.compile or XLA): the host time left is what "
                 "compiling did not remove, and the replay cannot tell how much of it a change would";
    return;
  }
  if (m.cpu_only) {
    p->why_not = "a CPU-only trace: the host's operators are the compute, and removing launch overhead does not say "
                 "how much faster they would run";
    return;
  }
  Edit e;
  e.work_scale = 0;
  e.work_floor_ns = kOneLaunchNs;
  const Replayed r = Calibrated(m, e, *p);
  SetPoint(r, p);
  e.work_scale = kLaunchWorkLeftHigh;
  e.work_floor_ns = 0;
  p->high_ms = Mean(Calibrated(m, e, *p).step_ms);
  p->assumptions.push_back(
      m.tf_graph ? fmt::format("the graph executor's per-op work ({} per step) shrinks to one launch of the compiled "
                               "program per step, as XLA auto-clustering fuses the graph's ops into clusters; at worst "
                               "half of it remains (ops XLA cannot cluster stay)",
                               Ms(m.work_ms_per_step))
                 : fmt::format("the host's own work ({} per step of launches, operators and Python) shrinks to one "
                               "graph launch per step; at worst half of it remains",
                               Ms(m.work_ms_per_step)));
  p->assumptions.push_back("device work is unchanged; input waits and host waits on the device stay");
  if (m.untraced_ms_per_step > 0)
    p->assumptions.push_back(fmt::format("the host's untraced time ({} per step, nothing recorded) stays: what runs "
                                         "there is unknown", Ms(m.untraced_ms_per_step)));
}

void PredictCpuWork(const StepModel& m, Prediction* p) {
  int64_t cpu_ns = 0;
  for (const auto& h : m.host)
    if (h.part == HostPart::kCpuWork) cpu_ns += h.end_ns - h.start_ns;
  if (m.cpu_only) {
    p->why_not = "a CPU-only trace: every operator computes on the CPU and there is no device to move the work to";
    return;
  }
  if (cpu_ns == 0) {
    p->why_not = "no operator computes on CPU tensors inside the steps: there is no CPU work to move";
    return;
  }
  Edit e;
  e.cpu_work_scale = 0;
  SetPoint(Calibrated(m, e, *p), p);
  e.cpu_work_scale = kCpuWorkLeftHigh;
  p->high_ms = Mean(Calibrated(m, e, *p).step_ms);
  p->assumptions.push_back(fmt::format(
      "the operators computing on CPU tensors ({} per step) leave the step's path: made on the device, or ahead of "
      "the step by the input pipeline's workers; at worst half of their time remains",
      Ms(double(cpu_ns) / double(m.steps.size()) / 1e6)));
  p->assumptions.push_back("the device's own work is unchanged: what the moved work costs there is not counted");
}

void PredictStalls(const StepModel& m, Prediction* p) {
  std::vector<double> ms;
  for (const auto& s : m.steps) ms.push_back(double(s.dur_ns()) / 1e6);
  const double med = Median(ms);
  int slow = 0;
  std::vector<double> fixed = ms, best = ms;
  const double fastest = *std::min_element(ms.begin(), ms.end());
  for (size_t i = 0; i < ms.size(); ++i)
    if (ms[i] > kOutlierStepFactor * med) {
      ++slow;
      fixed[i] = med;
      best[i] = fastest;
    }
  if (slow == 0) {
    p->why_not = fmt::format("no step is over {:.1f}x the median step: there is no stall to remove", kOutlierStepFactor);
    return;
  }
  // Slow steps only at the window's start are its warm-up (caches, allocator, autotuning): once
  // per run, not a stall that repeats, so nothing a checkpoint or logging change removes.
  size_t leading = 0;
  while (leading < ms.size() && ms[leading] > kOutlierStepFactor * med) ++leading;
  if (int(leading) == slow) {
    p->why_not = fmt::format("the slow step{} ({}) {} the first of the window: warm-up, once per run, not a stall that "
                             "repeats; the steady steps take {}",
                             slow == 1 ? "" : "s", slow == 1 ? Ms(ms[0]) : fmt::format("{} of them", slow),
                             slow == 1 ? "is" : "are", Ms(med));
    return;
  }
  // Slow steps whose extra time is mostly a wait for the input pipeline are the loader falling
  // behind (workers finishing together, slow items), not a stall a schedule change removes: the
  // input fix is the one that hides them.
  {
    std::vector<double> input_ms(ms.size(), 0);
    size_t k = 0;
    for (const HostSegment& h : m.host) {
      if (h.part != HostPart::kInput) continue;
      while (k < m.steps.size() && m.steps[k].end_ns <= h.start_ns) ++k;
      for (size_t j = k; j < m.steps.size() && m.steps[j].start_ns < h.end_ns; ++j)
        input_ms[j] += double(std::min(h.end_ns, m.steps[j].end_ns) - std::max(h.start_ns, m.steps[j].start_ns)) / 1e6;
    }
    std::vector<double> steady_input;
    double excess = 0, input_excess = 0;
    for (size_t i = 0; i < ms.size(); ++i)
      if (ms[i] <= kOutlierStepFactor * med) steady_input.push_back(input_ms[i]);
    const double typical_input = steady_input.empty() ? 0 : Median(steady_input);
    for (size_t i = 0; i < ms.size(); ++i)
      if (ms[i] > kOutlierStepFactor * med) excess += ms[i] - med, input_excess += std::max(0.0, input_ms[i] - typical_input);
    if (excess > 0 && input_excess >= kStallInputCauseShare * excess) {
      p->why_not = fmt::format("the slow steps wait for a batch ({} of their {} extra time is input wait): the loader "
                               "falls behind, not a checkpoint or logging stall; the input fix hides them",
                               Ms(input_excess), Ms(excess));
      return;
    }
  }
  p->predicted = true;
  p->predicted_step_ms = Mean(fixed);
  p->predicted_median_ms = Median(fixed);
  p->low_ms = Mean(best);
  p->high_ms = p->predicted_step_ms;
  p->bound_by = "host";
  p->critical_path = {{"typical_step", med}};
  p->assumptions.push_back(fmt::format("the {} slow step(s) (over {:.1f}x the {} median) take the median time: the stall "
                                       "(checkpoint, evaluation, logging) is removed or made asynchronous",
                                       slow, kOutlierStepFactor, Ms(med)));
}

void PredictAmp(const StepModel& m, Prediction* p) {
  if (m.cpu_only) {
    p->why_not = "a CPU-only trace: the replay has no device kernels to move to 16-bit math";
    return;
  }
  if (!m.tensor_core_device) {
    p->why_not = "the device is not known to have 16-bit matrix units (TensorCores, MFMA)";
    return;
  }
  double eligible = 0, total = 0;
  for (const auto& op : m.device)
    if (op.role == DeviceWorkRole::kCompute) {
      total += double(op.dur_ns);
      if (!IsReducedPrecision(op.precision)) eligible += double(op.dur_ns);
    }
  if (total <= 0) {
    p->why_not = "the device ran no compute kernels in the steps (copies or communication only): nothing for 16-bit math "
                 "to speed up";
    return;
  }
  if (eligible <= 0) {
    p->why_not = "the kernels already run in reduced precision";
    return;
  }
  Edit e;
  e.device_factor = AmpFactor;
  e.which = 2;
  SetPoint(Calibrated(m, e, *p), p);
  e.which = 1;
  p->low_ms = Mean(Calibrated(m, e, *p).step_ms);
  e.which = 0;
  p->high_ms = Mean(Calibrated(m, e, *p).step_ms);
  p->assumptions.push_back(fmt::format("{:.0f}% of kernel time is in kernels not yet in 16-bit math; matrix kernels speed up "
                                       "{:.1f}-{:.1f}x (TF32 ones {:.1f}-{:.1f}x), others {:.1f}-{:.1f}x",
                                       100 * eligible / total, kAmpMatrixFp32[0], kAmpMatrixFp32[1], kAmpMatrixTf32[0],
                                       kAmpMatrixTf32[1], kAmpMemoryBound[0], kAmpMemoryBound[1]));
  p->assumptions.push_back("host work, input waits and launches are unchanged");
}

void PredictOverlap(const StepModel& m, Prediction* p) {
  std::vector<Interval> comm;
  for (const auto& op : m.device)
    if (op.role == DeviceWorkRole::kCollective) comm.push_back({op.start_ns, op.start_ns + op.dur_ns});
  if (comm.empty()) {
    p->why_not = "the replay has no communication kernels to overlap";
    return;
  }
  // The link is busy as long as the trace shows, whatever overlaps it: no step is shorter.
  const double comm_ms = double(LengthWithin(MakeIntervalSet(std::move(comm)), m.lo(), m.hi())) / 1e6 / double(m.steps.size());
  Edit e;
  e.device_factor = OverlapFactor;
  e.drop_comm_waits = true;
  auto step = [&](int which) {
    e.which = which;
    return std::max(Mean(Calibrated(m, e, *p).step_ms), comm_ms);
  };
  e.which = 2;
  const Replayed r = Calibrated(m, e, *p);
  SetPoint(r, p);
  if (comm_ms > p->predicted_step_ms) {
    p->predicted_median_ms *= comm_ms / p->predicted_step_ms;
    p->predicted_step_ms = comm_ms;
    p->bound_by = "communication";
  }
  p->low_ms = step(0);
  p->high_ms = step(1);
  p->assumptions.push_back(fmt::format("communication ({} of kernel time per step) runs beside compute instead of before it "
                                       "(DDP's gradient buckets during backward, FSDP's prefetched all-gathers), at the same "
                                       "speed; no step is shorter than it",
                                       Ms(comm_ms)));
  p->assumptions.push_back(fmt::format("compute kernels beside it lose up to {:.0f}% speed to the SMs communication takes",
                                       100 * kOverlapComputeSlowdown));
  p->assumptions.push_back("not yet checked against a measured after-run (docs/whatif.md)");
}

}  // namespace

Result<FixSpec> ParseFix(std::string_view text) {
  FixSpec f;
  f.text = std::string(text);
  std::string_view head = text.substr(0, text.find(':'));
  std::string_view rest = head.size() < text.size() ? text.substr(head.size() + 1) : std::string_view{};
  if (head == "input") {
    f.kind = FixKind::kInput;
    if (!rest.empty()) {
      constexpr std::string_view kWorkers = "workers=";
      int n = 0;
      if (rest.substr(0, kWorkers.size()) != kWorkers) return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": expected input:workers=N"};
      std::string_view num = rest.substr(kWorkers.size());
      auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
      if (ec != std::errc() || ptr != num.data() + num.size() || n < 1 || n > 4096)
        return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": workers must be a whole number from 1 to 4096"};
      f.workers = n;
    }
    return f;
  }
  if (!rest.empty()) return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": " + std::string(head) + " takes no options"};
  if (head == "launch") f.kind = FixKind::kLaunch;
  else if (head == "stalls") f.kind = FixKind::kStalls;
  else if (head == "amp") f.kind = FixKind::kAmp;
  else if (head == "overlap") f.kind = FixKind::kOverlap;
  else if (head == "cpuwork") f.kind = FixKind::kCpuWork;
  else return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": unknown fix (expected " + FixSyntaxHelp() + ")"};
  return f;
}

std::string FixSyntaxHelp() { return "input, input:workers=N, launch, stalls, amp, overlap or cpuwork"; }

Prediction PredictFix(const StepModel& m, const FixSpec& fix, const WhatIfOptions& opts) {
  Prediction p;
  p.fix = fix.text;
  if (m.steps.empty()) {
    p.why_not = "no steps to replay";
    return p;
  }
  std::vector<double> ms;
  for (const auto& s : m.steps) ms.push_back(double(s.dur_ns()) / 1e6);
  p.baseline_step_ms = Mean(ms);
  p.baseline_median_ms = Median(ms);
  if (m.device_missing) {
    p.why_not = "device activity was not recorded, so the replay cannot tell when the device would finish "
                "(record it: PyTorch activities=[CPU, CUDA]; the TensorFlow profiler's device tracer)";
    return p;
  }
  if (m.hi() - m.lo() < kMinAnalysableWindowNs) {
    p.why_not = fmt::format("the steps span {:.1f} us in all: too little to replay", double(m.hi() - m.lo()) / 1e3);
    return p;
  }
  p.model_baseline_ms = Mean(Replay(m, Edit{}).step_ms);
  if (std::abs(p.model_baseline_ms - p.baseline_step_ms) > p.baseline_step_ms * kReplayMaxErrorPct / 100) {
    p.why_not = fmt::format("the replay of the trace as recorded gives {} per step against {} measured: the model does "
                            "not reproduce these steps closely enough to predict a change",
                            Ms(p.model_baseline_ms), Ms(p.baseline_step_ms));
    return p;
  }
  const int cores = opts.cores > 0 ? opts.cores : m.cores;
  switch (fix.kind) {
    case FixKind::kInput: PredictInput(m, fix, cores, &p); break;
    case FixKind::kLaunch: PredictLaunch(m, &p); break;
    case FixKind::kStalls: PredictStalls(m, &p); break;
    case FixKind::kAmp: PredictAmp(m, &p); break;
    case FixKind::kOverlap: PredictOverlap(m, &p); break;
    case FixKind::kCpuWork: PredictCpuWork(m, &p); break;
  }
  if (p.predicted && std::abs(p.model_baseline_ms - p.baseline_step_ms) > p.baseline_step_ms * kReplayTolerancePct / 100)
    p.assumptions.push_back(fmt::format("the replay of the trace as recorded gives {} per step against {} measured",
                                        Ms(p.model_baseline_ms), Ms(p.baseline_step_ms)));
  Finish(&p);
  // A fix that leaves the device's work as it is cannot make a step shorter than the device was
  // busy in it, whatever the replay packs onto other streams or the tolerance widens to.
  if (p.predicted && !m.cpu_only && (fix.kind == FixKind::kInput || fix.kind == FixKind::kLaunch || fix.kind == FixKind::kCpuWork)) {
    std::vector<Interval> busy;
    for (const auto& op : m.device) busy.push_back({op.start_ns, op.start_ns + op.dur_ns});
    const double floor_ms = double(LengthWithin(MakeIntervalSet(std::move(busy)), m.lo(), m.hi())) / 1e6 / double(m.steps.size());
    if (p.predicted_step_ms < floor_ms) {
      p.predicted_median_ms *= floor_ms / p.predicted_step_ms;
      p.predicted_step_ms = floor_ms;
      p.bound_by = "device";
      p.speedup = p.baseline_step_ms / floor_ms;
    }
    p.low_ms = std::max(p.low_ms, std::min(floor_ms, p.predicted_step_ms));
    p.high_ms = std::max(p.high_ms, p.predicted_step_ms * (1 + kReplayTolerancePct / 100));
  }
  return p;
}

}  // namespace stepdoctor
