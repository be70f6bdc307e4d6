#include "stepdoctor/analysis/tf_signals.h"

#include "stepdoctor/model/device_work_classify.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/core/checked_time.h"

namespace stepdoctor {
namespace {

const Arg* FindArg(const Trace& t, const Timeline& tl, uint32_t i, StringId key, bool have) {
  return have ? tl.FindArg(i, key) : nullptr;
}

struct Keys {
  StringId is_eager, tf_function_call, tracing_count, allocator_name, peak, allocated, fragmentation;
  bool has_is_eager = false, has_call = false, has_count = false, has_alloc = false, has_peak = false,
       has_allocated = false, has_frag = false;
  explicit Keys(const Trace& t) {
    is_eager = t.strings.Find("is_eager", &has_is_eager);
    tf_function_call = t.strings.Find("tf_function_call", &has_call);
    tracing_count = t.strings.Find("tracing_count", &has_count);
    allocator_name = t.strings.Find("allocator_name", &has_alloc);
    peak = t.strings.Find("peak_bytes_in_use", &has_peak);
    allocated = t.strings.Find("bytes_allocated", &has_allocated);
    fragmentation = t.strings.Find("fragmentation", &has_frag);
  }
};

// A double arg past int64 (or NaN) reads as 0, like a missing one.
int64_t AsInt(const Arg* a) { return !a ? 0 : a->type == ArgType::kDouble ? RoundToInt64(a->d).value_or(0) : a->i; }
double AsDouble(const Arg* a) { return !a ? 0 : a->type == ArgType::kDouble ? a->d : double(a->i); }

std::vector<TopEvent> TopOf(const std::map<std::string, std::pair<double, int64_t>>& m, double denom, size_t n) {
  std::vector<TopEvent> v;
  for (const auto& [name, tc] : m) v.push_back({name, tc.first, tc.second, denom > 0 ? 100.0 * tc.first / denom : 0});
  std::sort(v.begin(), v.end(), [](const TopEvent& a, const TopEvent& b) { return a.total_ms > b.total_ms; });
  if (v.size() > n) v.resize(n);
  return v;
}

void ComputeEagerAndRetracing(const Trace& trace, WorkerId w, const Keys& k, int64_t lo, int64_t hi, TfSignals* s) {
  std::map<std::string, std::pair<double, int64_t>> eager;
  std::map<std::string, TfRetrace> fns;
  double host_ms = 0, eager_ms = 0;
  for (const auto& t : trace.timelines) {
    if (t.worker != w || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (k.has_call) {
        if (const Arg* a = t.FindArg(i, k.tf_function_call); a && a->type == ArgType::kString) {
          TfRetrace& r = fns[std::string(trace.str(t.ev.name[i]))];
          ++r.calls;
          if (trace.str(a->s).rfind("traced", 0) == 0) {
            ++r.traces;
            r.trace_ms += t.ev.dur_ns[i] / 1e6;
          }
          if (const Arg* c = FindArg(trace, t, i, k.tracing_count, k.has_count)) r.traces = std::max(r.traces, AsInt(c));
        }
      }
      if (t.ev.kind[i] != EventKind::kFrameworkOp || t.ev.start_ns[i] < lo || t.ev.start_ns[i] >= hi) continue;
      double ms = t.ev.dur_ns[i] / 1e6;
      ++s->host_ops;
      host_ms += ms;
      const Arg* e = FindArg(trace, t, i, k.is_eager, k.has_is_eager);
      if (e && AsInt(e) != 0) {
        ++s->eager_ops;
        eager_ms += ms;
        auto& x = eager[std::string(trace.str(t.ev.name[i]))];
        x.first += ms;
        ++x.second;
      }
    }
  }
  int n = std::max(1, s->step_count);
  s->host_op_ms_per_step = host_ms / n;
  s->eager_op_ms_per_step = eager_ms / n;
  s->top_eager_ops = TopOf(eager, eager_ms, 5);
  for (auto& [name, r] : fns)
    if (r.traces >= 2) {
      r.function = name;
      s->retraced.push_back(r);
    }
  std::sort(s->retraced.begin(), s->retraced.end(),
            [](const TfRetrace& a, const TfRetrace& b) { return a.traces > b.traces; });
}

void ComputeDevice(const Trace& trace, WorkerId w, int64_t lo, int64_t hi, TfSignals* s) {
  std::unordered_map<uint32_t, std::pair<bool, bool>> cls;  // name -> (16-bit, tensor core)
  std::map<std::string, std::pair<double, int64_t>> fp32, coll;
  double kernel_ms = 0, k16 = 0, ktc = 0, coll_ms = 0, exposed_ms = 0;
  std::vector<Interval> host_coll, device_all;
  for (size_t d = 0; d < trace.devices.size(); ++d) {
    const Device& dev = trace.devices[d];
    if (dev.worker != w) continue;
    if (dev.kind == DeviceKind::kGpu &&
        ((dev.vendor != "amd" && dev.compute_major >= 7) || (dev.vendor == "amd" && dev.compute_major >= 9)))
      s->tensor_core_capable = true;
    if (dev.kind == DeviceKind::kHostCpu) continue;
    std::vector<Interval> compute, comm;
    bool active = false;
    for (const auto& t : trace.timelines) {
      if (t.device.v != d || t.kind != TimelineKind::kDeviceStream) continue;
      for (uint32_t i = 0; i < t.ev.size(); ++i) {
        if (t.ev.start_ns[i] < lo || t.ev.start_ns[i] >= hi) continue;
        EventKind k = t.ev.kind[i];
        if (IsDeviceActivity(k)) active = true;
        Interval iv{t.ev.start_ns[i], t.ev.start_ns[i] + t.ev.dur_ns[i]};
        if (IsDeviceActivity(k)) device_all.push_back(iv);
        double ms = t.ev.dur_ns[i] / 1e6;
        if (k == EventKind::kCollective) {
          comm.push_back(iv);
          auto& c = coll[std::string(trace.str(t.ev.name[i]))];
          c.first += ms;
          ++c.second;
        }
        if (k != EventKind::kKernel) continue;
        compute.push_back(iv);
        if (dev.kind != DeviceKind::kGpu) continue;  // TPU MXUs run bf16 already
        s->has_gpu_kernels = true;
        auto it = cls.find(t.ev.name[i].v);
        if (it == cls.end()) {
          std::string_view n = trace.str(t.ev.name[i]);
          it = cls.emplace(t.ev.name[i].v, std::make_pair(Is16BitKernelName(n), IsTensorCoreKernelName(n))).first;
        }
        kernel_ms += ms;
        if (it->second.first) k16 += ms;
        else {
          auto& f = fp32[std::string(trace.str(t.ev.name[i]))];
          f.first += ms;
          ++f.second;
        }
        if (it->second.second) ktc += ms;
      }
    }
    if (active) ++s->replicas;
    IntervalSet cs = MakeIntervalSet(std::move(comm));
    coll_ms += TotalLength(cs) / 1e6;
    exposed_ms += TotalLength(Subtract(cs, MakeIntervalSet(std::move(compute)))) / 1e6;
  }
  int n = std::max(1, s->step_count);
  int r = std::max(1, s->replicas);
  s->kernel_ms_per_step = kernel_ms / n / r;
  s->kernel_16bit_ms_per_step = k16 / n / r;
  s->kernel_tensor_core_ms_per_step = ktc / n / r;
  s->top_fp32_kernels = TopOf(fp32, kernel_ms, 5);
  if (coll_ms > 0) {
    s->collective_ms_per_step = coll_ms / n / r;
    s->collective_exposed_ms_per_step = exposed_ms / n / r;
    s->top_collectives = TopOf(coll, coll_ms, 5);
    return;
  }
  // No communication kernels: TF's CollectiveReduce (gRPC/RDMA ring) runs as host ops.
  for (const auto& t : trace.timelines) {
    if (t.worker != w || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kCollective && t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi) {
        host_coll.push_back({t.ev.start_ns[i], t.ev.start_ns[i] + t.ev.dur_ns[i]});
        auto& c = coll[std::string(trace.str(t.ev.name[i]))];
        c.first += t.ev.dur_ns[i] / 1e6;
        ++c.second;
      }
  }
  if (host_coll.empty()) return;
  s->collectives_on_host = true;
  IntervalSet hc = MakeIntervalSet(std::move(host_coll));
  s->collective_ms_per_step = TotalLength(hc) / 1e6 / n;
  s->collective_exposed_ms_per_step = TotalLength(Subtract(hc, MakeIntervalSet(std::move(device_all)))) / 1e6 / n;
  s->top_collectives = TopOf(coll, TotalLength(hc) / 1e6, 5);
}

void ComputeMemory(const Trace& trace, WorkerId w, const Keys& k, TfSignals* s) {
  if (!k.has_alloc) return;
  std::map<std::string, TfMemoryPeak> peaks;
  for (const auto& t : trace.timelines) {
    if (t.worker != w) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kMemoryEvent) continue;
      const Arg* a = t.FindArg(i, k.allocator_name);
      if (!a || a->type != ArgType::kString) continue;
      std::string_view name = trace.str(a->s);
      if (name.rfind("GPU_", 0) != 0 && name.rfind("TPU_", 0) != 0) continue;  // device allocators only
      TfMemoryPeak& p = peaks[std::string(name)];
      p.allocator = std::string(name);
      p.peak_bytes = std::max({p.peak_bytes, AsInt(FindArg(trace, t, i, k.peak, k.has_peak)),
                               AsInt(FindArg(trace, t, i, k.allocated, k.has_allocated))});
      p.max_fragmentation = std::max(p.max_fragmentation, AsDouble(FindArg(trace, t, i, k.fragmentation, k.has_frag)));
    }
  }
  for (auto& [name, p] : peaks) {
    int idx = std::atoi(name.c_str() + 4);
    DeviceKind kind = name[0] == 'G' ? DeviceKind::kGpu : DeviceKind::kTpu;
    for (const Device& d : trace.devices)
      if (d.worker == w && d.kind == kind && d.index == idx) {
        p.capacity_bytes = d.memory_bytes;
        p.device = d.name;
      }
    s->memory.push_back(p);
  }
  std::sort(s->memory.begin(), s->memory.end(),
            [](const TfMemoryPeak& a, const TfMemoryPeak& b) { return a.peak_pct() > b.peak_pct(); });
}

}  // namespace

// Both read the one device-work classifier (model/device_work_classify), so TensorFlow's
// figures and the step breakdown never disagree on what a kernel is.
bool Is16BitKernelName(std::string_view kernel) { return IsReducedPrecision(KernelPrecisionOf(kernel)); }
bool IsTensorCoreKernelName(std::string_view kernel) { return ClassifyDeviceWork(kernel).tensor_core; }

std::unique_ptr<TfSignals> ComputeTfSignals(const Trace& trace, const StepSignals* steps) {
  WorkerId w = PrimaryWorker(trace);
  return ComputeTfSignals(trace, w, w.valid() ? TraceToSteps(trace, w) : StepWindows{}, steps);
}

std::unique_ptr<TfSignals> ComputeTfSignals(const Trace& trace, WorkerId w, const StepWindows& win,
                                            const StepSignals* steps) {
  const Framework framework = FrameworkOf(trace, w);
  bool tf_like = framework == Framework::kTensorFlow || framework == Framework::kJax ||
                 !trace.scalars.empty();
  if (!tf_like) return nullptr;
  auto s = std::make_unique<TfSignals>();
  s->framework_tf = framework == Framework::kTensorFlow;
  s->stalls = ScalarsToEventStalls(trace.scalars);
  if (!w.valid()) return s;

  int64_t lo = win.window_start_ns, hi = win.window_end_ns;
  if (!win.steps.empty()) {
    lo = win.steps.front().start_ns;
    hi = win.steps.back().end_ns;
  }
  double input_wait_ms = 0;
  if (steps && steps->step_count > 0) {
    s->step_count = steps->step_count;
    s->step_ms = steps->mean_step_ms;
    input_wait_ms = steps->input_wait_ms;
    s->launch_share_pct = steps->mean_step_ms > 0
                              ? 100.0 * steps->category_ms[int(StepCategory::kKernelLaunch)] / steps->mean_step_ms
                              : 0;
    s->median_kernel_us = steps->median_kernel_us;
    s->median_launch_us = steps->median_launch_us;
  } else {
    s->step_count = static_cast<int>(win.steps.size());
    double total = 0;
    for (const auto& st : win.steps) total += st.dur_ns() / 1e6;
    s->step_ms = s->step_count > 0 ? total / s->step_count : 0;
    // Without the step breakdown: host input waits (union) per step.
    std::vector<Interval> waits;
    for (const auto& t : trace.timelines)
      if (t.worker == w && t.kind == TimelineKind::kHostThread)
        for (uint32_t i = 0; i < t.ev.size(); ++i)
          if (t.ev.kind[i] == EventKind::kInputWait && t.ev.start_ns[i] >= lo && t.ev.start_ns[i] < hi)
            waits.push_back({t.ev.start_ns[i], t.ev.start_ns[i] + t.ev.dur_ns[i]});
    input_wait_ms = s->step_count > 0 ? TotalLength(MakeIntervalSet(std::move(waits))) / 1e6 / s->step_count : 0;
  }
  s->input_share_pct = s->step_ms > 0 ? 100.0 * input_wait_ms / s->step_ms : 0;
  s->input_exposed_pct = steps && steps->step_count > 0 && steps->mean_step_ms > 0
                             ? 100.0 * steps->category_ms[int(StepCategory::kInput)] / steps->mean_step_ms
                             : s->input_share_pct;
  for (const auto& t : trace.timelines)
    if (t.worker == w && t.name.rfind("tf_gpu_private", 0) == 0) s->gpu_private_threads = true;

  Keys keys(trace);
  s->tfdata = TraceToTfDataPipeline(trace, w, s->step_count, s->step_ms, input_wait_ms);
  ComputeEagerAndRetracing(trace, w, keys, lo, hi, s.get());
  ComputeDevice(trace, w, lo, hi, s.get());
  ComputeMemory(trace, w, keys, s.get());
  return s;
}

}  // namespace stepdoctor
