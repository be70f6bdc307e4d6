#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/model/device_work_classify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <map>
#include <vector>

#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/model/runtime_calls.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

// Allocator series on an accelerator, from Kineto's [memory] events (model/series_names.h).
bool IsDeviceMemorySeries(std::string_view name) {
  return series::IsGpuSeries(name, series::GpuMetric::kAllocatedBytes, nullptr) ||
         series::IsGpuSeries(name, series::GpuMetric::kReservedBytes, nullptr);
}

// A synchronize of the whole device (every stream), not of one stream or event.
bool IsDeviceWideSync(std::string_view name) {
  return name == "cudaDeviceSynchronize" || name == "hipDeviceSynchronize" || name == "cuCtxSynchronize";
}

// Runtime calls that only ask (cudaGetDeviceCount, cudaDriverGetVersion, cudaPeekAtLastError):
// a CPU-only job may make them; they are no sign that work went to a device.
bool IsQueryCall(std::string_view name) { return RuntimeCallRoleOf(name, 0, false) == RuntimeCallRole::kQuery; }


// The profiler's own span over its recording window (Kineto's "Trace" span, kept on a line of the
// profiler's records alone): an event on a derived line that covers every event of the worker's
// host threads. Where it is at least kProfilerWindowFactor times their span, the window the
// profiler recorded is mostly empty, and the line says so; else empty.
inline constexpr double kProfilerWindowFactor = 2.0;
std::string ProfilerWindowBeyondEvents(const Trace& trace, WorkerId worker) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kHostThread)
      for (size_t i = 0; i < t.ev.size(); ++i) {
        lo = std::min(lo, t.ev.start_ns[i]);
        hi = std::max(hi, t.end_ns(uint32_t(i)));
      }
  if (hi <= lo) return {};
  int64_t span = 0;
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kDerived)
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.kind[i] == EventKind::kOther && t.ev.start_ns[i] <= lo && t.end_ns(uint32_t(i)) >= hi)
          span = std::max(span, t.ev.dur_ns[i]);
  if (double(span) < kProfilerWindowFactor * double(hi - lo)) return {};
  auto text = [](int64_t ns) { return ns >= 1'000'000'000 ? fmt::format("{:.1f} s", ns / 1e9) : fmt::format("{:.1f} ms", ns / 1e6); };
  return fmt::format("the profiler recorded for {}, but its events span {} of it: nothing was recorded in the other {}",
                     text(span), text(hi - lo), text(span - (hi - lo)));
}

}  // namespace

// (aten::cudnn_convolution, miopen_batch_norm, cublas handles, NCCL collectives): a job whose
// trace holds them used one, whether or not its device work was recorded. So do ATen operators
// with only accelerator kernels: flash and memory-efficient attention (the CPU's own is named
// `..._for_cpu`), fused dropout, `record_stream`, and pinning host memory (which needs a device
// to pin for; PyTorch skips it without one).
bool IsAcceleratorOpName(std::string_view name) {
  for (std::string_view lib : {"cudnn", "miopen", "cublas", "hipblas", "nccl", "rccl", "Nccl"})
    if (name.find(lib) != std::string_view::npos) return true;
  if (IsTfNcclManagerCollective(name)) return true;
  if (name.substr(0, 6) != "aten::" || name.find("_for_cpu") != std::string_view::npos) return false;
  for (std::string_view op : {"_flash_attention", "_efficient_attention", "aten::_fused_dropout", "aten::record_stream",
                              "aten::_pin_memory"})
    if (name.find(op) != std::string_view::npos) return true;
  return false;
}

const char* DeviceCoverageName(DeviceCoverage c) {
  switch (c) {
    case DeviceCoverage::kCaptured: return "captured";
    case DeviceCoverage::kMissing: return "missing";
    case DeviceCoverage::kCpuOnly: break;
  }
  return "cpu_only";
}

// A distributed backend that exists only on accelerators: a collective library (nccl, rccl,
// hccl, xccl, ...) or a device type named as the backend (cuda, xpu, npu, dcu, ...). A map of
// backends per device ("cpu:gloo,cuda:nccl", PyTorch's default when none is named, whatever the
// machine has) says nothing unless every entry is an accelerator's.
bool AcceleratorBackend(std::string_view backend) {
  static constexpr std::string_view kNames[] = {"nccl", "rccl", "hccl", "xccl", "cncl", "bkcl", "mccl", "eccl",
                                                "cuda", "hip",  "rocm", "xpu",  "npu",  "tpu",  "dcu",  "mlu",
                                                "hpu",  "mps"};
  auto accelerator = [&](std::string_view name) {
    for (auto n : kNames)
      if (name == n) return true;
    return false;
  };
  std::string b(backend);
  for (auto& c : b) c = char(std::tolower(static_cast<unsigned char>(c)));
  bool any = false;
  for (size_t start = 0; start <= b.size();) {
    size_t end = std::min(b.find_first_of(",;", start), b.size());
    std::string_view item = std::string_view(b).substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    start = end + 1;
    if (item.empty()) continue;
    // "cuda:nccl": a device type, then its library; either naming an accelerator counts.
    const size_t colon = item.find(':');
    const bool acc = colon == std::string_view::npos
                         ? accelerator(item)
                         : accelerator(item.substr(0, colon)) || accelerator(item.substr(colon + 1));
    if (!acc) return false;
    any = true;
  }
  return any;
}

DeviceEvidence TraceToDeviceEvidence(const Trace& trace, WorkerId worker) {
  DeviceEvidence out;
  // Any device activity recorded settles it, before the host's names are read one by one.
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kDeviceStream &&
        std::any_of(t.ev.kind.begin(), t.ev.kind.end(), IsDeviceActivity)) {
      out.coverage = DeviceCoverage::kCaptured;
      if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).device_times_per_operator) {
        out.per_operator = true;
        out.evidence.push_back(
            "device time per operator, from the autograd profiler's CUDA events (its own export, without Kineto): "
            "the device's busy time is known, but not its kernels, their precision or the launch calls; "
            "torch.profiler (PyTorch >= 1.8.1) records those");
      }
      return out;
    }
  int64_t runtime_calls = 0, query_calls = 0, profiler_ranges = 0, work_calls = 0, linked_work_calls = 0, accelerator_ops = 0,
          framework_ops = 0;
  std::string_view accelerator_op;
  int64_t last_work_end = INT64_MIN, last_sync_start = INT64_MIN;
  std::pair<StringId, int64_t> last_sync{};  // the latest device-wide synchronize: name, length
  // What each name is, worked out once per name rather than once per event.
  enum : uint8_t { kKnown = 1, kQuery = 2, kWork = 4, kAcceleratorOp = 8, kProfilerRange = 16, kAlloc = 32 };
  int64_t slowest_alloc_ns = 0;  // the longest allocation operator: past kDeviceStartAllocNs, a runtime starting
  StringId slowest_alloc{};
  std::vector<uint8_t> traits(trace.strings.size(), 0);
  std::vector<int64_t> runtime_count(trace.strings.size(), 0);  // non-query runtime calls by name
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      EventKind k = t.ev.kind[i];
      const StringId id = t.ev.name[i];
      uint8_t& f = traits[id.v];
      if (!f) {
        const std::string_view n = trace.str(id);
        f = kKnown | (IsQueryCall(n) ? kQuery : 0) | (IsDeviceWorkCallName(n) ? kWork : 0) |
            (IsAcceleratorOpName(n) ? kAcceleratorOp : 0) | (n == "cuda_profiler_range" ? kProfilerRange : 0) |
            (n == "aten::empty" || n == "aten::empty_strided" ? kAlloc : 0);
      }
      if (k == EventKind::kFrameworkOp && (f & kAlloc) && t.ev.dur_ns[i] > slowest_alloc_ns)
        slowest_alloc_ns = t.ev.dur_ns[i], slowest_alloc = id;
      query_calls += k == EventKind::kRuntime && (f & kQuery);
      framework_ops += k == EventKind::kFrameworkOp && t.kind == TimelineKind::kHostThread;
      if (k == EventKind::kRuntime && !(f & kQuery)) {
        ++runtime_calls;
        ++runtime_count[id.v];
        if (f & kWork) ++work_calls, linked_work_calls += t.ev.corr[i] != 0, last_work_end = std::max(last_work_end, t.end_ns(i));
        if (IsDeviceWideSync(trace.str(id)) && t.ev.start_ns[i] >= last_sync_start)
          last_sync_start = t.ev.start_ns[i], last_sync = {t.ev.name[i], t.ev.dur_ns[i]};
      } else if ((k == EventKind::kFrameworkOp || k == EventKind::kCollective) && (f & kAcceleratorOp)) {
        if (accelerator_ops++ == 0) accelerator_op = trace.str(id);
      } else if (f & kProfilerRange) {
        ++profiler_ranges;
      }
    }
  }
  std::map<std::string_view, int64_t> runtime_names;
  for (size_t id = 0; id < runtime_count.size(); ++id)
    if (runtime_count[id] > 0) runtime_names[trace.str(StringId{uint32_t(id)})] = runtime_count[id];
  // No device work recorded. Did the job use an accelerator at all?
  if (runtime_calls > 0) {
    std::vector<std::pair<int64_t, std::string_view>> top;
    for (const auto& [n, c] : runtime_names) top.push_back({c, n});
    std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string names;
    for (size_t i = 0; i < top.size() && i < 3; ++i)
      names += fmt::format("{}{} x{}", i ? ", " : "", top[i].second, top[i].first);
    out.evidence.push_back(fmt::format("{} accelerator runtime call{} ({}{}) but no device events", runtime_calls,
                                       runtime_calls == 1 ? "" : "s", names,
                                       query_calls > 0 ? fmt::format("; and {} quer{} of the device", query_calls,
                                                                     query_calls == 1 ? "y" : "ies")
                                                       : ""));
    // Calls that only wait or allocate: the window launched nothing (its work ran before it, or
    // the window holds set-up alone), which recording device activity would not change.
    out.nothing_launched = work_calls == 0;
    // A profiler that records device activity (Kineto, TensorFlow's, rocprof) gives each launch a
    // correlation id for its device record. Calls with none, in a trace no framework's profiler
    // wrote, come from a tracer of host API calls alone (an interposer, eBPF probes on the
    // driver): device records were never part of what it records, not lost.
    const Framework framework = FrameworkOf(trace, worker);
    const bool profiler =
        framework == Framework::kPyTorch || framework == Framework::kTensorFlow || framework == Framework::kJax;
    out.tracer_on = work_calls > 0 && (linked_work_calls > 0 || profiler);
    out.calls_traced = profiler;
    if (work_calls > 0 && !out.tracer_on)
      out.evidence.push_back("the launch and copy calls carry no correlation ids and no framework's profiler wrote "
                             "the trace: its tracer records host API calls only, not device activity");
    if (out.nothing_launched)
      out.evidence.push_back("none of those calls launches a kernel or a copy: no device work was issued inside the window");
    if (work_calls > 0 && last_sync_start != INT64_MIN && last_sync_start >= last_work_end)
      out.synced_after_launches = fmt::format("{} ({:.2f} ms)", trace.str(last_sync.first), last_sync.second / 1e6);
  }
  // Kineto started CUPTI's activity tracing (it writes its version then): device activity was
  // asked for, and its records were lost, however few calls the host recorded.
  if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).device_tracer_started) {
    out.tracer_started = true;
    if (!out.nothing_launched) out.tracer_on = true;
  }
  if (accelerator_ops > 0)
    out.evidence.push_back(fmt::format("{} operators that run on an accelerator ({}{})", accelerator_ops, accelerator_op,
                                       accelerator_ops > 1 ? ", ..." : ""));
  if (slowest_alloc_ns >= kDeviceStartAllocNs)
    out.evidence.push_back(fmt::format("an allocation ({}) that took {:.2f} s: a device's runtime starting inside it "
                                       "(context creation on the first device tensor); allocating host memory takes "
                                       "microseconds",
                                       trace.str(slowest_alloc), slowest_alloc_ns / 1e9));
  if (profiler_ranges > 0)
    out.evidence.push_back(fmt::format("{} cuda_profiler_range events (CUPTI range-profiler mode records no kernels)",
                                       profiler_ranges));
  size_t host_allocs = 0;
  for (const auto& c : trace.counters)
    if (c.worker == worker && c.name == series::kHostAllocatedBytes) host_allocs += c.value.size();
  for (const auto& c : trace.counters)
    if (c.worker == worker && IsDeviceMemorySeries(c.name) && !c.value.empty()) {
      out.evidence.push_back(fmt::format("allocator events on the device ({})", c.name));
      break;
    }
  // A listed device is evidence only where nothing says the job kept its tensors off it: with
  // the profiler's memory events on, a job using the device allocates there.
  const bool allocs_all_on_host = out.evidence.empty() && host_allocs >= kHostOnlyAllocEvents;
  for (const auto& d : trace.devices)
    if (d.worker == worker && d.kind != DeviceKind::kHostCpu) {
      const std::string name = d.name.empty() ? "GPU " + std::to_string(d.index) : d.name;
      if (allocs_all_on_host)
        out.listed_unused = fmt::format("the trace lists a device ({}), but all {} of its memory events allocate on the "
                                        "CPU and nothing ran on the device: the job did not use it (move the model and "
                                        "its inputs to it, e.g. model.to('cuda'), to use it)",
                                        name, host_allocs);
      else
        out.evidence.push_back(fmt::format("the trace lists a device ({}) with no activity recorded", name));
      break;
    }
  // The process group's backend names the accelerator's collective library (NCCL, RCCL, HCCL,
  // ...) or its device type: the ranks exchanged tensors on accelerators. gloo, mpi and ucc run
  // on CPU tensors too, so they say nothing either way.
  if (worker.valid() && worker.v < trace.workers.size()) {
    const std::string_view b = trace.worker(worker).backend;
    if (!b.empty() && AcceleratorBackend(b))
      out.evidence.push_back(fmt::format("the process group's backend is {}, which runs on accelerators", b));
  }
  if (!out.evidence.empty()) {
    out.coverage = DeviceCoverage::kMissing;
    out.profiler_window = ProfilerWindowBeyondEvents(trace, worker);
    out.no_operators = !out.profiler_window.empty() && framework_ops == 0;
    // A wait on the device says it was busy then, though none of its work was recorded.
    StringId longest_name{};
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.dur_ns[i] > out.longest_device_wait_ns &&
            trace.str(t.ev.name[i]).find("ynchroniz") != std::string_view::npos)
          out.longest_device_wait_ns = t.ev.dur_ns[i], longest_name = t.ev.name[i];
    }
    if (out.longest_device_wait_ns >= kDeviceWaitEvidenceNs && out.nothing_launched) {
      // Nothing in the window launched work: the device had nothing of the window's to run, so the
      // wait is the runtime's own start-up (context creation, loading device code) or work issued
      // before the profiler started.
      out.evidence.push_back(fmt::format("the host waited {:.2f} ms in {}, with no launch before it in the window: the "
                                         "runtime starting (context creation, loading device code) or work issued "
                                         "before the profiler started",
                                         out.longest_device_wait_ns / 1e6, trace.str(longest_name)));
      out.longest_device_wait_ns = 0;
    } else if (out.longest_device_wait_ns >= kDeviceWaitEvidenceNs) {
      out.longest_device_wait_name = std::string(trace.str(longest_name));
      out.evidence.push_back(fmt::format("the host waited {:.2f} ms on the device in {}: the device was still running "
                                         "work then, none of it recorded",
                                         out.longest_device_wait_ns / 1e6, out.longest_device_wait_name));
    } else {
      out.longest_device_wait_ns = 0;
    }
  }
  return out;
}

Coverage TraceToCoverage(const Trace& trace, const StepWindows& windows, const DeviceEvidence& device,
                         const AppliedOptimizations& applied, double cold_startup_pct) {
  const bool cold_window = cold_startup_pct > 0;
  Coverage c;
  c.framework = FrameworkName(trace.framework);
  c.device_activity = DeviceCoverageName(device.coverage);
  c.steps = windows.whole_window ? "whole_window" : windows.inferred ? "inferred" : "markers";
  // Confidence starts high and drops for each thing the input lacks.
  int score = 2;
  if (device.coverage == DeviceCoverage::kMissing) score = 0;
  if (windows.whole_window || windows.inferred) --score;
  if (device.per_operator) --score;
  if (device.partial) --score;
  // One step has no others to be compared with: a warm-up pass cannot be told from a steady one.
  const bool one_step = !windows.whole_window && windows.steps.size() == 1;
  if (one_step) --score;
  if (cold_window) score = 0;
  c.confidence = score >= 2 ? "high" : score == 1 ? "medium" : "low";
  c.evidence = device.evidence;
  if (windows.inferred) c.evidence.push_back("steps: " + windows.source);
  // Iterations are inferred only from a repeated sequence that starts with its input (repeated_iterations.h).
  if (windows.whole_window)
    c.evidence.push_back("no step markers, and no repeated sequence of operators that starts with an input (a batch read "
                         "or made): one region");
  if (one_step) c.evidence.push_back(OneStepCaveat(windows.source, windows.steps.front().number, cold_startup_pct));
  if (!windows.warmup.empty())
    c.evidence.push_back(fmt::format("{} warm-up step{} kept out of the figures ({:.1f} ms)", windows.warmup.size(),
                                     windows.warmup.size() == 1 ? "" : "s", windows.warmup.front().dur_ns() / 1e6));
  c.applied = applied.Labels();
  if (applied.pinned_memory) c.applied.push_back("pinned memory");
  return c;
}

bool CoverageWithoutEvents(const Trace& trace, Coverage* c) {
  // Samples with no GPU series stay CPU-only: the sampler saw no GPU. With neither events nor
  // samples (a trace of metadata alone) nothing was recorded: no claim about a device.
  bool gpu_series = false, samples = false, timeline = false;
  for (const auto& s : trace.counters) {
    gpu_series |= series::GpuIndexOf(s.name) >= 0;
    const bool of_timeline = s.name.rfind(series::kMemoryTimelinePrefix, 0) == 0;
    timeline |= of_timeline && !s.value.empty();
    samples |= !of_timeline && !s.value.empty();
  }
  c->device_activity = gpu_series ? "sampled" : samples ? "cpu_only" : timeline ? "memory_timeline" : "no_events";
  c->confidence = "low";
  c->evidence = {gpu_series ? "utilisation samples only: how busy the device was, not what it ran"
                 : samples  ? "no trace events: samples or event files only"
                 : timeline ? "a memory timeline only: what tensors held, by category, not where step time went"
                            : "no events recorded: nothing shows whether an accelerator was used"};
  return gpu_series;
}

}  // namespace stepdoctor
