#include "stepdoctor/analysis/whatif.h"

#include "stepdoctor/analysis/whatif_comm.h"
#include "stepdoctor/analysis/whatif_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <queue>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/analysis/batch_scaling.h"  // kCpuDispatchNs

namespace stepdoctor {
namespace {

using namespace whatif_replay;

// What one graph launch costs the host per step once launches are fused (a cudaGraphLaunch of a
// captured step measures 10-30 us on current drivers).
constexpr int64_t kOneLaunchNs = 20'000;
// What running a graph's XLA clusters costs the host per step: TensorFlow's _XlaLaunch op took
// 503 us (one cluster) and 623 us (three) a step in two public TF1 timelines of MNIST runs with
// XLA on (TensorflowXLABeginner/XLA-Report, aistein/dlprof), against 20 us for a CUDA graph.
constexpr int64_t kXlaLaunchHostNs = 500'000;
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
// The batch fix's optimistic end: device kernels shorter than this keep their time with more
// items (they do not fill the device).
constexpr int64_t kBatchSmallKernelNs = 10'000;
// A speed-up that takes a device op off the step (its time rounds to nothing).
constexpr double kRemovedOpFactor = 1e9;
// The stalls fix declines where this share of the slow steps' extra time or more is input wait
// (the share step_time_outliers names a cause at).
constexpr double kStallInputCauseShare = 0.5;

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
  // A graph run by XLA still costs the host its clusters' launches: TensorFlow's _XlaLaunch op,
  // not one graph launch.
  const int64_t floor_ns = m.tf_graph ? kXlaLaunchHostNs : kOneLaunchNs;
  // For a TensorFlow graph the point keeps half the pessimistic end's share of the executor's
  // work (on the two measured TF1 pairs 20-40% of it remained besides _XlaLaunch), the low end none.
  Edit e;
  e.work_scale = m.tf_graph ? kLaunchWorkLeftHigh / 2 : 0;
  e.work_floor_ns = floor_ns;
  const Replayed r = Calibrated(m, e, *p);
  SetPoint(r, p);
  if (m.tf_graph) {
    e.work_scale = 0;
    p->low_ms = Mean(Calibrated(m, e, *p).step_ms);
  }
  e.work_scale = kLaunchWorkLeftHigh;
  e.work_floor_ns = m.tf_graph ? floor_ns : 0;
  p->high_ms = Mean(Calibrated(m, e, *p).step_ms);
  p->assumptions.push_back(
      m.tf_graph ? fmt::format("the graph executor's per-op work ({} per step) shrinks to the launch of the compiled "
                               "clusters, {:.1f} ms a step on the host (TensorFlow's _XlaLaunch: 0.50-0.62 ms measured "
                               "on two TF1 runs with XLA), as auto-clustering fuses the graph's ops; a quarter of that "
                               "work remains at the point, half at worst (ops XLA cannot cluster stay), none at best",
                               Ms(m.work_ms_per_step), double(kXlaLaunchHostNs) / 1e6)
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
  // At best the data is made on the device: its host-to-device copies (and the host's wait on a
  // copy from pageable memory) go with the CPU work.
  const bool copies = std::any_of(m.device.begin(), m.device.end(), [](const DeviceOp& op) { return op.h2d; });
  if (copies) {
    e.cpu_work_scale = 0;
    e.device_factor = [](const DeviceOp& op, int) { return op.h2d ? kRemovedOpFactor : 1.0; };
    p->low_ms = std::min(p->low_ms, Mean(Calibrated(m, e, *p).step_ms));
  }
  p->assumptions.push_back(fmt::format(
      "the operators computing on CPU tensors ({} per step) leave the step's path: made on the device, or ahead of "
      "the step by the input pipeline's workers; at worst half of their time remains",
      Ms(double(cpu_ns) / double(m.steps.size()) / 1e6)));
  if (copies)
    p->assumptions.push_back("the step's host-to-device copies stay at the point (a batch prepared ahead still needs "
                             "copying); at best, with the data made on the device, they go too");
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

// The batch fix: each step does K times the items. What a step spends per item (its operators'
// compute on the device or, in a CPU-only job, on the CPU; its host-to-device copies; operators
// computing on CPU tensors; the input wait) grows K times; what it spends per step (operator
// dispatch, launches, Python, syncs' latency, collectives of the gradients, whose size the batch
// does not change) stays. Throughput is K x today's step / the predicted step.
void PredictBatch(const StepModel& m, const FixSpec& fix, Prediction* p) {
  const double k = fix.scale;
  p->batch_scale = k;
  std::vector<double> factors(m.device.size(), 1.0), small(m.device.size(), 1.0);
  double scaled_ns = 0;
  for (size_t i = 0; i < m.device.size(); ++i) {
    const DeviceOp& op = m.device[i];
    if ((op.role != DeviceWorkRole::kCompute && !op.h2d) || op.per_param) continue;
    factors[i] = 1.0 / k;
    // The optimistic end: a kernel too short to fill the device takes about the same time with
    // more items (its time is a wave and its start, not its work).
    small[i] = op.dur_ns < kBatchSmallKernelNs && k > 1 ? 1.0 : 1.0 / k;
    scaled_ns += double(op.dur_ns);
  }
  int64_t cpu_ns = 0;
  for (const auto& h : m.host)
    if (h.part == HostPart::kCpuWork) cpu_ns += h.end_ns - h.start_ns;
  if (scaled_ns <= 0 && cpu_ns <= 0 && m.input_ms_per_step <= 0) {
    p->why_not = "the steps show no work that grows with the batch (no compute kernels, copies, CPU operators or "
                 "input wait)";
    return;
  }
  Edit e;
  e.input_scale = k;
  e.cpu_work_scale = k;
  e.op_factors = &factors;
  SetPoint(Calibrated(m, e, *p), p);
  e.op_factors = &small;
  const double other = Mean(Calibrated(m, e, *p).step_ms);
  p->low_ms = std::min(p->predicted_step_ms, other);
  p->high_ms = std::max(p->predicted_step_ms, other);
  const double steps = double(m.steps.size());
  if (m.cpu_only)
    p->assumptions.push_back(fmt::format(
        "the operators' own compute ({} per step) grows {:g}x; their dispatch ({:.1f} us a call), the optimizer's per-parameter "
        "work and the Python between them ({} per step in all) stay as they are",
        Ms(double(cpu_ns) / steps / 1e6), k,
        double(kCpuDispatchNs) / 1e3,
        Ms(m.work_ms_per_step)));
  else
    p->assumptions.push_back(fmt::format(
        "compute kernels and host-to-device copies ({} of device time per step) grow {:g}x{}; launches, the host's "
        "own work ({} per step), the optimizer's per-parameter kernels and communication of the gradients stay as they are",
        Ms(scaled_ns / steps / 1e6), k, k > 1 ? " (at best, kernels under 10 us keep their time: they do not fill the device)" : "",
        Ms(m.work_ms_per_step)));
  if (!m.cpu_only && cpu_ns > 0)
    p->assumptions.push_back(fmt::format("operators computing on CPU tensors ({} per step) grow {:g}x",
                                         Ms(double(cpu_ns) / steps / 1e6), k));
  if (m.input_ms_per_step >= 0.05)
    p->assumptions.push_back(fmt::format("the input wait ({} per step) grows {:g}x{}", Ms(m.input_ms_per_step), k,
                                         m.loader_workers ? " (it is the loader workers' shortfall; their work grows too)" : ""));
  p->assumptions.push_back(fmt::format("the batch of {:g}x the items fits in memory; per-item work does not change "
                                       "(convergence per epoch, and the learning rate it wants, are not modelled)",
                                       k));
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
  if (head == "comm") {
    // comm:devices=N[,link=L]
    f.kind = FixKind::kComm;
    std::string_view opts = rest;
    while (!opts.empty()) {
      const std::string_view item = opts.substr(0, opts.find(','));
      opts = item.size() < opts.size() ? opts.substr(item.size() + 1) : std::string_view{};
      if (item.substr(0, 8) == "devices=") {
        const std::string_view num = item.substr(8);
        auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), f.devices);
        if (ec != std::errc() || ptr != num.data() + num.size() || f.devices < 2 || f.devices > 1'000'000)
          return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": devices must be a whole number from 2 to 1000000"};
      } else if (item.substr(0, 5) == "link=") {
        f.link = std::string(item.substr(5));
        if (!FindCommLink(f.link)) {
          std::string names;
          for (const CommLink& l : CommLinks()) names += (names.empty() ? "" : ", ") + std::string(l.name);
          return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": unknown link '" + f.link + "' (expected " + names + ")"};
        }
      } else {
        return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": expected comm:devices=N[,link=L]"};
      }
    }
    if (f.devices == 0) return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": expected comm:devices=N[,link=L]"};
    return f;
  }
  if (head == "batch") {
    // batch:scale=K
    f.kind = FixKind::kBatch;
    constexpr std::string_view kScale = "scale=";
    const std::string_view num = rest.substr(0, kScale.size()) == kScale ? rest.substr(kScale.size()) : std::string_view{};
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), f.scale);
    if (num.empty() || ec != std::errc() || ptr != num.data() + num.size() || !(f.scale >= 0.1 && f.scale <= 64) ||
        f.scale == 1)
      return {ErrorCode::kInvalidArgument, "--fix " + f.text + ": expected batch:scale=K, K from 0.1 to 64 and not 1"};
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

std::string FixSyntaxHelp() {
  return "input, input:workers=N, launch, stalls, amp, overlap, cpuwork, comm:devices=N[,link=L] or batch:scale=K";
}

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
  // One region dominated by one-off start-up: there is no steady step to predict from (diagnose
  // holds its findings' predictions back on the same window: cold_window.h).
  if (m.steps.size() == 1) {
    int64_t startup_ns = 0;
    for (const HostSegment& h : m.host)
      if (h.part == HostPart::kStartup) startup_ns += h.end_ns - h.start_ns;
    if (double(startup_ns) >= kColdWindowStartupPct / 100.0 * double(m.steps[0].dur_ns())) {
      p.why_not = "the window is one cold first pass (one-off start-up included): there is no steady step to predict from";
      return p;
    }
  }
  const int cores = opts.cores > 0 ? opts.cores : m.cores;
  switch (fix.kind) {
    case FixKind::kInput: PredictInput(m, fix, cores, &p); break;
    case FixKind::kLaunch: PredictLaunch(m, &p); break;
    case FixKind::kStalls: PredictStalls(m, &p); break;
    case FixKind::kAmp: PredictAmp(m, &p); break;
    case FixKind::kOverlap: PredictOverlap(m, &p); break;
    case FixKind::kCpuWork: PredictCpuWork(m, &p); break;
    case FixKind::kComm: PredictCommScale(m, fix, &p); break;
    case FixKind::kBatch: PredictBatch(m, fix, &p); break;
  }
  if (p.predicted && std::abs(p.model_baseline_ms - p.baseline_step_ms) > p.baseline_step_ms * kReplayTolerancePct / 100)
    p.assumptions.push_back(fmt::format("the replay of the trace as recorded gives {} per step against {} measured",
                                        Ms(p.model_baseline_ms), Ms(p.baseline_step_ms)));
  Finish(&p);
  // A fix that leaves the device's work as it is cannot make a step shorter than the device was
  // busy in it, whatever the replay packs onto other streams or the tolerance widens to.
  if (p.predicted && !m.cpu_only && (fix.kind == FixKind::kInput || fix.kind == FixKind::kLaunch || fix.kind == FixKind::kCpuWork)) {
    // The CPU-work fix's best case also drops the host-to-device copies (PredictCpuWork): its
    // low end's floor is the rest of the device's work.
    std::vector<Interval> busy, kept;
    for (const auto& op : m.device) {
      busy.push_back({op.start_ns, op.start_ns + op.dur_ns});
      if (!(fix.kind == FixKind::kCpuWork && op.h2d)) kept.push_back({op.start_ns, op.start_ns + op.dur_ns});
    }
    auto per_step = [&](std::vector<Interval> v) {
      return double(LengthWithin(MakeIntervalSet(std::move(v)), m.lo(), m.hi())) / 1e6 / double(m.steps.size());
    };
    const double floor_ms = per_step(std::move(busy)), low_floor_ms = per_step(std::move(kept));
    if (p.predicted_step_ms < floor_ms) {
      p.predicted_median_ms *= floor_ms / p.predicted_step_ms;
      p.predicted_step_ms = floor_ms;
      p.bound_by = "device";
      p.speedup = p.baseline_step_ms / floor_ms;
    }
    p.low_ms = std::max(p.low_ms, std::min(low_floor_ms, p.predicted_step_ms));
    p.high_ms = std::max(p.high_ms, p.predicted_step_ms * (1 + kReplayTolerancePct / 100));
  }
  // A fix that only removes work (launch overhead, CPU work, stalls) cannot make a step slower
  // than measured: the replay's tolerance widens the range down, not past the step as it is.
  // (Hiding input behind workers can: they take cores from the training process.)
  if (p.predicted && (fix.kind == FixKind::kLaunch || fix.kind == FixKind::kCpuWork || fix.kind == FixKind::kStalls) &&
      p.baseline_step_ms > 0) {
    p.predicted_step_ms = std::min(p.predicted_step_ms, p.baseline_step_ms);
    p.high_ms = std::min(p.high_ms, p.baseline_step_ms);
    p.low_ms = std::min(p.low_ms, p.predicted_step_ms);
    p.speedup = p.baseline_step_ms / p.predicted_step_ms;
  }
  p.throughput_speedup = p.speedup * p.batch_scale;
  return p;
}

}  // namespace stepdoctor
