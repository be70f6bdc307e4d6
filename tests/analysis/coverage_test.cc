// What a trace holds and lacks (coverage), and the mechanisms that keep a verdict to what was
// recorded: device activity missing, accelerators by structure, inferred steps and warm-up,
// device idle with work already queued, untraced host time, one-off start-up, host syncs and
// blocking copies, and no advice for what is already in use (warm-up steps: warmup_steps_test.cc).
// Small inputs built in the test.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "inline_chrome.h"
#include "step_builder.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

constexpr int64_t kMs = 1'000'000;

Report AnalyzeJson(const std::string& json, Trace* keep = nullptr) {
  Trace t;
  auto src = MemorySource(json, "inline.json");
  Status st = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(st.ok()) << st.message();
  Report r = AnalyzeTrace(t);
  if (keep) *keep = std::move(t);
  return r;
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}


// Launch calls and no kernels: the accelerator was used, its work not recorded.
TEST(Coverage, LaunchesWithoutDeviceEventsAreMissingNotCpuOnly) {
  std::string ev;
  for (int i = 0; i < 5; ++i) {
    ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 800);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 1000.0 + 100, 20, "{\"correlation\":" + std::to_string(i + 1) + "}");
  }
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.coverage.confidence, "low");
  ASSERT_FALSE(r.coverage.evidence.empty());
  EXPECT_NE(r.coverage.evidence[0].find("cudaLaunchKernel"), std::string::npos);
  EXPECT_NE(Find(r, "device_activity_missing"), nullptr);
  EXPECT_EQ(Find(r, "compute_bound"), nullptr);
  EXPECT_EQ(Find(r, "host_bound"), nullptr);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
}

// The same operators with no runtime calls: a CPU-only job, where the CPU is the device.
// A tracer that writes runtime/driver calls without categories (eBPF, LD_PRELOAD): the calls are
// known by their names, so the job used an accelerator whose work is not in the trace.
TEST(Coverage, DriverCallsWithoutCategoriesAreAcceleratorEvidence) {
  std::string ev = R"(,{"ph":"X","name":"cuMemAlloc_v2","pid":7,"tid":7,"ts":0,"dur":200})"
                   R"(,{"ph":"X","name":"cuLaunchKernel","pid":7,"tid":7,"ts":300,"dur":20})"
                   R"(,{"ph":"X","name":"cuMemcpyDtoHAsync_v2","pid":7,"tid":7,"ts":5000,"dur":50})"
                   R"(,{"ph":"X","name":"cuStreamSynchronize","pid":7,"tid":7,"ts":5100,"dur":3000})";
  Report r = AnalyzeJson("{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"app\"}}" + ev + "]}");
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.verdict.summary.find("compute"), std::string::npos) << r.verdict.summary;
  EXPECT_EQ(r.verdict.summary.rfind("device activity not captured", 0), 0u) << r.verdict.summary;
}

// Runtime calls that only wait, allocate or ask: nothing was issued inside the window, so the
// advice is to profile training steps, not to turn device tracing on.
TEST(Coverage, NothingLaunchedInTheWindowIsSaid) {
  std::string ev = X("cuda_runtime", "cudaGetDeviceProperties_v2", 1, 1, 0, 1300) +
                   X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 2000, 185000, Corr(1));
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.verdict.summary.rfind("no device work in the window", 0), 0u) << r.verdict.summary;
  const Finding* f = Find(r, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("no device work was issued"), std::string::npos) << f->title;
  // With a launch among the calls, the tracer was on and lost the records: the other advice.
  Report launched = AnalyzeJson(Doc(ev + X("cuda_runtime", "cudaLaunchKernel", 1, 1, 1500, 10, Corr(2))));
  EXPECT_EQ(launched.verdict.summary.rfind("device activity not captured", 0), 0u) << launched.verdict.summary;}

// The older autograd profiler records operators only; cuDNN operators show the job ran on a GPU.
TEST(Coverage, AcceleratorOperatorsAreEvidence) {
  std::string ev = X("Operator", "aten::cudnn_convolution", 1, 1, 0, 2000) + X("Operator", "aten::relu", 1, 1, 2000, 100);
  Report r = AnalyzeJson("[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}}" + ev + "]");
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.verdict.summary.find("CPU computes"), std::string::npos) << r.verdict.summary;
}

// Without device properties, HIP runtime calls say the GPU is AMD's (matrix cores: MFMA).
TEST(Coverage, HipRuntimeMeansAnAmdGpu) {
  std::string ev = X("cuda_runtime", "hipLaunchKernel", 1, 1, 0, 10, Corr(1)) +
                   X("kernel", "Cijk_Ailk_Bljk_SB_MT64x64", 2, 0, 20, 500, "{\"correlation\":1,\"device\":0,\"stream\":0}");
  Trace t;
  AnalyzeJson(Doc(ev), &t);
  bool amd = false;
  for (const auto& d : t.devices) amd |= d.kind == DeviceKind::kGpu && d.vendor == "amd" && HasMatrixUnits(d);
  EXPECT_TRUE(amd);
}

TEST(Coverage, OperatorsAloneAreCpuOnly) {
  std::string ev;
  for (int i = 0; i < 5; ++i) ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 900);
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "cpu_only");
  EXPECT_EQ(Find(r, "device_activity_missing"), nullptr);
}

// Metadata and the profiler's own instant alone (an empty tensorboard_trace_handler window):
// nothing was recorded, so there is no claim about a device and confidence is low. One operator
// more and the same document is CPU-only again.
TEST(Coverage, NoEventsMakeNoDeviceClaim) {
  const std::string meta = ",{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}"
                           ",{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\",\"ts\":5}";
  Report empty = AnalyzeJson(Doc(meta));
  EXPECT_EQ(empty.coverage.device_activity, "no_events");
  EXPECT_EQ(empty.coverage.confidence, "low");
  Report one = AnalyzeJson(Doc(meta + X("cpu_op", "aten::mm", 1, 1, 0, 900)));
  EXPECT_EQ(one.coverage.device_activity, "cpu_only");
}

// Query calls alone (a CPU job asking how many GPUs there are) are no sign of device work.
TEST(Coverage, RuntimeQueriesAloneAreCpuOnly) {
  std::string ev = X("cpu_op", "aten::mm", 1, 1, 0, 900);
  ev += X("cuda_runtime", "cudaGetDeviceCount", 1, 1, 950, 5);
  ev += X("cuda_runtime", "cudaDriverGetVersion", 1, 1, 960, 5);
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "cpu_only");
}

// Allocator events on a CUDA device (Kineto's [memory] instants) with no kernels: missing.
TEST(Coverage, DeviceAllocatorEventsWithoutActivityAreMissing) {
  std::string ev = X("cpu_op", "aten::empty", 1, 1, 0, 900);
  ev += ",{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
        "\"ts\":100,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Total Allocated\":4096,\"Total Reserved\":8192}}";
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "missing");
  bool allocator = false;
  for (const auto& e : r.coverage.evidence) allocator |= e.find("allocator events") != std::string::npos;
  EXPECT_TRUE(allocator);
}

// deviceProperties alone (no launches recorded) still says a GPU was there.
TEST(Coverage, DevicePropertiesWithoutActivityAreMissing) {
  std::string ev = X("cpu_op", "aten::mm", 1, 1, 0, 900);
  Report r = AnalyzeJson(Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100\",\"computeMajor\":8}]"));
  EXPECT_EQ(r.coverage.device_activity, "missing");
}

// The process group's backend names an accelerator's collective library: device activity is
// missing, not CPU-only. gloo (CPU tensors) and PyTorch's default per-device map say nothing.
TEST(Coverage, AcceleratorBackendIsEvidence) {
  std::string ev;
  for (int i = 0; i < 5; ++i) ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 900);
  auto with = [&](const std::string& backend) {
    return AnalyzeJson(Doc(ev, ",\"distributedInfo\":{\"backend\":\"" + backend + "\",\"rank\":0,\"world_size\":2}"));
  };
  Report nccl = with("nccl");
  EXPECT_EQ(nccl.coverage.device_activity, "missing");
  bool said = false;
  for (const auto& e : nccl.coverage.evidence) said |= e.find("backend is nccl") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(with("hccl").coverage.device_activity, "missing");
  EXPECT_EQ(with("gloo").coverage.device_activity, "cpu_only");
  EXPECT_EQ(with("cpu:gloo,cuda:nccl").coverage.device_activity, "cpu_only");
  EXPECT_TRUE(AcceleratorBackend("cuda:nccl"));
  EXPECT_TRUE(AcceleratorBackend("XCCL"));
  EXPECT_FALSE(AcceleratorBackend("mpi"));
  EXPECT_FALSE(AcceleratorBackend("ncclx_wrapper"));
  EXPECT_FALSE(AcceleratorBackend(""));
}

// ATen operators that have only accelerator kernels say the job ran on one; their CPU forms
// (`..._for_cpu`) and operators of both kinds say nothing.
TEST(Coverage, AcceleratorOnlyOperatorsAreEvidence) {
  auto with = [](const char* op) {
    std::string ev;
    for (int i = 0; i < 5; ++i) {
      ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 500);
      ev += X("cpu_op", op, 1, 1, i * 1000.0 + 600, 300);
    }
    return AnalyzeJson(Doc(ev)).coverage.device_activity;
  };
  EXPECT_EQ(with("aten::_scaled_dot_product_flash_attention"), "missing");
  EXPECT_EQ(with("aten::_efficient_attention_forward"), "missing");
  EXPECT_EQ(with("aten::record_stream"), "missing");
  EXPECT_EQ(with("aten::_pin_memory"), "missing");
  EXPECT_EQ(with("aten::_scaled_dot_product_flash_attention_for_cpu"), "cpu_only");
  EXPECT_EQ(with("aten::scaled_dot_product_attention"), "cpu_only");
  EXPECT_EQ(with("aten::dropout"), "cpu_only");
}

// An allocation operator that takes kDeviceStartAllocNs or more is a runtime starting inside it
// (the first device tensor creates the context): evidence of an accelerator in a trace that
// records no runtime call; a shorter one is a host allocation like any other.
TEST(Coverage, AnAllocationThatTakesSecondsIsADeviceStartingBothSides) {
  auto with = [](double alloc_us) {
    std::string ev;
    ev += X("cpu_op", "aten::to", 1, 1, 0, alloc_us + 70000);
    ev += X("cpu_op", "aten::empty_strided", 1, 1, 5, alloc_us);
    ev += X("cpu_op", "aten::copy_", 1, 1, alloc_us + 10, 65000);
    for (int i = 0; i < 5; ++i) ev += X("cpu_op", "aten::mm", 1, 1, alloc_us + 80000 + i * 1000.0, 500);
    return AnalyzeJson(Doc(ev));
  };
  const Report slow = with(kDeviceStartAllocNs / 1e3 + 1000);
  EXPECT_EQ(slow.coverage.device_activity, "missing");
  std::string ev;
  for (const auto& e : slow.coverage.evidence) ev += e + "\n";
  EXPECT_NE(ev.find("an allocation (aten::empty_strided) that took 1.00 s"), std::string::npos) << ev;
  EXPECT_EQ(with(kDeviceStartAllocNs / 1e3 - 1000).coverage.device_activity, "cpu_only");
}

// Any vendor's device process ("XPU 0", its own categories) is a device, never a host thread.
TEST(Coverage, AcceleratorsAreFoundByStructure) {
  std::string ev = ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"XPU 0\"}}";
  for (int i = 0; i < 4; ++i) {
    ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 100);
    ev += X("xpu_runtime", "urEnqueueKernelLaunch", 1, 1, i * 1000.0 + 10, 20, "{\"correlation\":" + std::to_string(i + 1) + "}");
    ev += X("xpu_activity", "gemm_kernel", 7, 3, i * 1000.0 + 40, 900, "{\"correlation\":" + std::to_string(i + 1) + "}");
  }
  Trace t;
  Report r = AnalyzeJson(Doc(ev), &t);
  EXPECT_EQ(r.coverage.device_activity, "captured");
  bool xpu = false;
  for (const auto& d : t.devices) xpu |= d.kind == DeviceKind::kOther && d.name == "XPU 0";
  EXPECT_TRUE(xpu);
  for (const auto& tl : t.timelines) {
    if (tl.kind == TimelineKind::kHostThread)
      for (size_t i = 0; i < tl.ev.size(); ++i)
        if (t.str(tl.ev.name[i]) == "urEnqueueKernelLaunch") {
          EXPECT_EQ(tl.ev.kind[i], EventKind::kRuntime);
        }
    if (tl.device.valid() && t.device(tl.device).name == "XPU 0") {
      EXPECT_EQ(tl.kind, TimelineKind::kDeviceStream);
      for (size_t i = 0; i < tl.ev.size(); ++i) EXPECT_EQ(tl.ev.kind[i], EventKind::kKernel);
    }
  }
}

// Device activity recorded for only part of the launches: where at least kPartialCaptureShare of
// kPartialCaptureMinLaunches or more kernel launches have no kernel recorded (a capture that
// stopped while the device still had work queued), the coverage says so, a note says the device's
// share is a lower bound, and the confidence drops a level; just under that share, nothing.
TEST(Coverage, LaunchesWithoutKernelsMakeThePartialCaptureBothSides) {
  auto run = [](int launches, int unrecorded) {
    std::string ev;
    for (int step = 0; step < 4; ++step)
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(step)).c_str(), 1, 1, step * 10000.0, 10000);
    for (int i = 0; i < launches; ++i) {
      const double t = 100 + i * 900.0;
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t, 8, Corr(i + 1));
      if (i < launches - unrecorded) ev += testing::StreamKernel("gemm", t + 20, 700, i + 1);
    }
    return AnalyzeJson(Doc(ev));
  };
  const int n = 40;
  const int at = int(kPartialCaptureShare * n);  // 10 of 40
  Report partial = run(n, at);
  EXPECT_EQ(partial.coverage.device_activity, "captured");
  bool said = false;
  for (const auto& e : partial.coverage.evidence) said |= e.find("10 of 40 kernel launches have no kernel recorded") == 0;
  EXPECT_TRUE(said);
  bool noted = false;
  for (const auto& note : partial.notes) noted |= note.find("device activity captured in part") == 0;
  EXPECT_TRUE(noted);
  Report whole = run(n, at - 1);
  for (const auto& e : whole.coverage.evidence) EXPECT_EQ(e.find("kernel launches have no kernel recorded"), std::string::npos);
  EXPECT_EQ(whole.coverage.confidence, "high");
  EXPECT_EQ(partial.coverage.confidence, "medium");
}

using testing::StepBuilder;
using Builder = StepBuilder;

double Cat(const StepSignals& s, StepCategory c) { return s.category_ms[int(c)]; }

// Device activity missing and the window one cold first pass (a 2 s first cuDNN convolution): the
// verdict says both.
TEST(Coverage, MissingDeviceActivityInAColdWindowSaysBoth) {
  std::string ev = X("Operator", "aten::cudnn_convolution", 1, 1, 0, 2000000);
  for (int i = 0; i < 3; ++i) ev += X("Operator", "aten::cudnn_convolution", 1, 1, 2000000 + i * 6000.0, 5000);
  Report r = AnalyzeJson("[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}}" + ev + "]");
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_NE(r.verdict.summary.find("cold first pass"), std::string::npos) << r.verdict.summary;
}

// The cold window's note says how to profile after warm-up with the profiler the trace came from.
TEST(Coverage, ColdWindowAdviceFollowsTheFramework) {
  std::string ev = X("Operator", "aten::cudnn_convolution", 1, 1, 0, 2000000);
  for (int i = 0; i < 3; ++i) ev += X("Operator", "aten::cudnn_convolution", 1, 1, 2000000 + i * 6000.0, 5000);
  auto note = [&](const std::string& process) {
    // TensorFlow's trace viewer: its plane, and its executor thread's name.
    const std::string tf_thread =
        process[0] == '/' ? ",{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"tf_Compute\"}}" : "";
    Report r = AnalyzeJson("[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"" +
                           process + "\"}}" + tf_thread + ev + "]");
    for (const auto& n : r.notes)
      if (n.find("one cold first pass") != std::string::npos) return n + " [" + r.coverage.framework + "]";
    return std::string("none [") + r.coverage.framework + "]";
  };
  const std::string tf = note("/host:CPU"), other = note("python");
  EXPECT_NE(tf.find("profile_batch=(10, 15)"), std::string::npos) << tf;
  EXPECT_EQ(tf.find("torch.profiler"), std::string::npos) << tf;
  EXPECT_NE(other.find("PyTorch: torch.profiler.schedule"), std::string::npos) << other;
  EXPECT_NE(other.find("TensorFlow: profile_batch"), std::string::npos) << other;
  // Kineto's categories make it PyTorch.
  std::string kineto = X("cpu_op", "aten::cudnn_convolution", 1, 1, 0, 2000000);
  for (int i = 0; i < 3; ++i) kineto += X("cpu_op", "aten::cudnn_convolution", 1, 1, 2000000 + i * 6000.0, 5000);
  Report r = AnalyzeJson("[" + kineto.substr(1) + "]");
  bool torch = false;
  for (const auto& n : r.notes)
    torch |= n.find("one cold first pass") != std::string::npos &&
             n.find("e.g. torch.profiler.schedule(wait=1, warmup=1, active=3)") != std::string::npos;
  EXPECT_TRUE(torch) << r.coverage.framework;
}

// Queries (cudaGetDeviceCount, cudaStreamIsCapturing) launch nothing: not kernel-launch time.
TEST(Coverage, RuntimeQueriesAreNotLaunchOverhead) {
  Builder b;
  b.Host(0, 10 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(0, 2 * kMs, EventKind::kRuntime, "cudaGetDeviceProperties_v2");
  b.Host(2 * kMs, kMs, EventKind::kRuntime, "cudaStreamIsCapturing");
  b.Host(3 * kMs, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);  // under kLazyLoadLaunchNs: a launch
  b.Dev(3 * kMs + kMs / 2, 6 * kMs + kMs / 2, 1);
  StepSignals s = b.Run();
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kKernelLaunch), 0.5);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kHostCompute), 3.0);
}

// Work queued at 1 ms that the device starts at 8 ms, the host done at 3 ms: the 7 ms between
// are the device's (untraced device work, queue latency, clock offset), not the host's.
TEST(Coverage, DeviceIdleWithWorkQueuedIsNotHostTime) {
  Builder b;
  b.Host(0, 20 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(0, 1 * kMs, EventKind::kFrameworkOp, "aten::linear");
  b.Host(1 * kMs / 2, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);
  b.Host(1 * kMs, 2 * kMs, EventKind::kFrameworkOp, "python_after_launch");  // host done at 3 ms
  b.Dev(8 * kMs, 12 * kMs, 1);
  StepSignals s = b.Run();
  EXPECT_DOUBLE_EQ(s.device_queued_ms, 7.0);                 // 1 ms -> 8 ms
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kHostCompute), 0.5);  // 0-0.5 ms only: before the launch
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kKernelLaunch), 0.5);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kDeviceCompute), 12.0);
  EXPECT_DOUBLE_EQ(s.host_end_ms, 3.0);
  EXPECT_DOUBLE_EQ(s.device_end_ms, 20.0);
  // The host busy right up to the device's start, after device work the trace records: the
  // queued work may have waited on it (a stream waiting on an event the host records later), so
  // the gap stays the host's.
  Builder h;
  h.Host(0, 20 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  h.Host(1 * kMs / 2, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);
  h.Host(1 * kMs, 7 * kMs, EventKind::kFrameworkOp, "python_after_launch");  // busy until 8 ms
  h.Dev(1 * kMs, kMs / 10, 1);  // a first kernel, at once
  h.Dev(8 * kMs, 12 * kMs, 1);
  StepSignals sh = h.Run();
  EXPECT_DOUBLE_EQ(sh.device_queued_ms, 0.0);
  // 1.1-8 ms in Python, and 0-0.5 ms with nothing recorded: a gap under 1 ms inside the step is
  // overhead between operators, the host's too.
  EXPECT_DOUBLE_EQ(Cat(sh, StepCategory::kHostCompute), 7.4);
  // The same without the first kernel: the queued one is the first device work recorded, so the
  // device was still running work launched before the profiler began (a T4 VGG pass: 95
  // launches queued 6.8 ms before the first kernel), not waiting on the host.
  Builder f;
  f.Host(0, 20 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  f.Host(1 * kMs / 2, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);
  f.Host(1 * kMs, 7 * kMs, EventKind::kFrameworkOp, "python_after_launch");
  f.Dev(8 * kMs, 12 * kMs, 1);
  EXPECT_DOUBLE_EQ(f.Run().device_queued_ms, 7.0);
  // Started right after its launch (within kQueuedSlackNs): the host was late, nothing queued.
  Builder c;
  c.Host(0, 20 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  c.Host(0, 8 * kMs, EventKind::kFrameworkOp, "aten::linear");
  c.Host(7 * kMs + kMs / 2, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);
  c.Dev(8 * kMs + kMs / 2, 10 * kMs, 1);
  StepSignals s2 = c.Run();
  EXPECT_DOUBLE_EQ(s2.device_queued_ms, 0.0);
  EXPECT_GT(Cat(s2, StepCategory::kHostCompute), 7.0);
}

// A 30 ms annotation with 2 ms of operators: the 28 ms gap is untraced host time; a 0.5 ms
// gap between operators is framework overhead.
TEST(Coverage, LongGapsInsideAnnotationsAreUntraced) {
  Builder b;
  b.Host(0, 40 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(0, 30 * kMs, EventKind::kUserAnnotation, "prepare_batch");
  b.Host(0, 1 * kMs, EventKind::kFrameworkOp, "aten::cat");
  b.Host(1 * kMs + kMs / 2, kMs / 2, EventKind::kFrameworkOp, "aten::stack");  // 0.5 ms gap before it
  b.Host(2 * kMs, 0, EventKind::kFrameworkOp, "aten::empty");
  b.Dev(30 * kMs, 10 * kMs);
  StepSignals s = b.Run();
  EXPECT_DOUBLE_EQ(s.untraced_host_ms, 28.0);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kHostCompute), 2.0);
}

// One 300 ms cudaFree in a whole-window trace: one-off start-up, not launch overhead.
// CPU-only: short gaps between operators are overhead; a long gap with nothing recorded (no
// Python frames) is untraced host time, not "framework overhead between operators".
TEST(Coverage, CpuOnlyLongGapsAreUntracedNotOverhead) {
  std::string ev = X("cpu_op", "aten::linear", 1, 1, 0, 2000) + X("cpu_op", "aten::add", 1, 1, 2050, 500) +
                   X("cpu_op", "aten::mm", 1, 1, 13000, 500);  // a 10.45 ms gap before it
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "cpu_only");
  const Finding* f = Find(r, "untraced_time");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NEAR(f->share_pct, 100.0 * 10.45 / 13.5, 0.5);
  EXPECT_EQ(Find(r, "host_bound"), nullptr);
  EXPECT_EQ(r.coverage.confidence, "low");  // the trace explains under half of its step
  // No accelerator: the profiler to run asks for CPU activity alone; with device work it asks for both.
  EXPECT_EQ(f->fix.pytorch.find("ProfilerActivity.CUDA"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.pytorch.find("ProfilerActivity.CPU"), std::string::npos) << f->fix.pytorch;
  Report gpu = AnalyzeJson(Doc(ev + testing::StreamKernel("gemm", 100, 1500, 1)));
  const Finding* g = Find(gpu, "untraced_time");
  ASSERT_NE(g, nullptr) << gpu.verdict.summary;
  EXPECT_NE(g->fix.pytorch.find("ProfilerActivity.CUDA"), std::string::npos) << g->fix.pytorch;
  // The same gap inside recorded Python frames is Python time, the host's.
  Report py = AnalyzeJson(Doc(ev + X("python_function", "train.py(42): step", 1, 1, 2550, 10450)));
  EXPECT_EQ(Find(py, "untraced_time"), nullptr);
}

// A first call far slower than the operator's later ones (cuDNN autotuning, lazy loading) is
// warm-up: start-up, and the window a cold first pass; a first call only somewhat slower is not.
TEST(Coverage, SlowFirstCallsAreWarmup) {
  auto doc = [](double first_ms) {
    std::string ev = X("cpu_op", "aten::conv2d", 1, 1, 0, first_ms * 1000);
    double t = first_ms * 1000;
    for (int i = 0; i < 3; ++i, t += 6000) ev += X("cpu_op", "aten::conv2d", 1, 1, t, 5000);
    return Doc(ev);
  };
  Report cold = AnalyzeJson(doc(2000));
  EXPECT_NE(Find(cold, "cold_start"), nullptr) << cold.verdict.summary;
  Report warm = AnalyzeJson(doc(40));  // under kOneOffRuntimeNs: an operator, however slow
  EXPECT_EQ(Find(warm, "cold_start"), nullptr);
}

// The first calls of a layer stack (each shape's first matmul choosing its kernel) run tens of
// times longer than the rest, each only a few ms: their leading run is start-up. Slow calls that
// come back after fast ones recur: not warm-up.
TEST(Coverage, LeadingSlowCallsOfAnOperatorAreWarmup) {
  auto doc = [](bool recur) {
    std::string ev;
    double t = 0;
    for (int i = 0; i < 3; ++i, t += 2300) ev += X("cpu_op", "aten::addmm", 1, 1, t, 2200);  // layer 0
    for (int i = 0; i < 12; ++i, t += 100) {
      const bool slow = recur && i == 6;
      ev += X("cpu_op", "aten::addmm", 1, 1, t, slow ? 2200 : 50);
      if (slow) t += 2200;
    }
    return Doc(ev);
  };
  auto startup = [](const Report& r) {
    double ms = 0;
    for (const auto& e : r.breakdown_detail)
      if (e.category == "other_startup") ms = e.ms_per_step;
    return ms;
  };
  EXPECT_NEAR(startup(AnalyzeJson(doc(false))), 6.6, 0.05);  // the three 2.2 ms calls
  EXPECT_EQ(startup(AnalyzeJson(doc(true))), 0.0);
}

TEST(Coverage, OneOffRuntimeCallsAreStartupNotLaunchOverhead) {
  Builder b;
  b.Host(0, 300 * kMs, EventKind::kRuntime, "cudaFree");
  b.Host(300 * kMs, kMs / 2, EventKind::kRuntime, "cudaLaunchKernel", 1);  // under kLazyLoadLaunchNs
  b.Dev(301 * kMs, 20 * kMs, 1);
  StepSignals s = b.Run();
  EXPECT_DOUBLE_EQ(s.startup_ms, 300.0);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kKernelLaunch), 0.5);
  ASSERT_EQ(s.startup_events.size(), 1u);
  EXPECT_EQ(s.startup_events[0].name, "cudaFree");
}

// A synchronous copy is a transfer; a synchronize call is the host waiting on the device.
TEST(Coverage, BlockingCopiesAndSyncsAreNotLaunchOverhead) {
  Builder b;
  b.Host(0, 20 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(0, 5 * kMs, EventKind::kRuntime, "cudaMemcpy");
  b.Host(5 * kMs, 5 * kMs, EventKind::kRuntime, "cudaStreamSynchronize");
  b.Host(10 * kMs, 5 * kMs, EventKind::kRuntime, "hipMemcpyWithStream");
  b.Host(15 * kMs, 5 * kMs, EventKind::kRuntime, "cudaLaunchKernel");
  StepSignals s = b.Run();
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kMemcpy), 10.0);
  EXPECT_DOUBLE_EQ(s.sync_wait_ms, 5.0);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kKernelLaunch), 5.0);
}

// The trace shows CUDA graphs and DataLoader workers in use: no finding advises them.
TEST(Coverage, NoAdviceForWhatIsAlreadyInUse) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    double t0 = i * 100000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t0, 100000);
    ev += X("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1, 1, t0, 50000);
    ev += X("cpu_op", "aten::linear", 1, 1, t0 + 50000, 40000);
    ev += X("cuda_runtime", "cudaGraphLaunch", 1, 1, t0 + 90000, 100, "{\"correlation\":" + std::to_string(i + 1) + "}");
    ev += X("kernel", "gemm", 0, 7, t0 + 90200, 9000, "{\"correlation\":" + std::to_string(i + 1) + ",\"device\":0}");
  }
  Report r = AnalyzeJson(Doc(ev));
  EXPECT_EQ(r.coverage.device_activity, "captured");
  ASSERT_GE(r.coverage.applied.size(), 2u);
  const Finding* in = Find(r, "input_bound");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->fix.pytorch.find("num_workers=min(8"), std::string::npos) << in->fix.pytorch;
  EXPECT_NE(in->fix.summary.find("already"), std::string::npos);
  if (const Finding* h = Find(r, "host_bound")) {
    EXPECT_EQ(h->fix.pytorch.find("CUDAGraph()"), std::string::npos);
    EXPECT_EQ(h->fix.pytorch.find("torch.compile(model)"), std::string::npos);
  }
}

// Exposed communication that is DeepEP's expert-parallel all-to-all gets MoE advice, not NCCL
// gradient all-reduce advice; FSDP's all-gathers and reduce-scatters get sharded-data-parallel
// advice; NCCL all-reduce keeps the DDP advice.
TEST(Coverage, CollectiveAdviceFitsTheLibrary) {
  for (const char* kernel : {"void dpsk::ep::internode::combine<false, 8>(int4*)", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                             "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"}) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      double t0 = i * 10000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t0, 10000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 10, 10, "{\"correlation\":" + std::to_string(2 * i + 1) + "}");
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 30, 10, "{\"correlation\":" + std::to_string(2 * i + 2) + "}");
      ev += X("kernel", "gemm", 0, 7, t0 + 50, 5000, "{\"correlation\":" + std::to_string(2 * i + 1) + ",\"device\":0}");
      ev += X("kernel", kernel, 0, 8, t0 + 5100, 4800, "{\"correlation\":" + std::to_string(2 * i + 2) + ",\"device\":0}");
    }
    Report r = AnalyzeJson(Doc(ev));
    const Finding* c = Find(r, "collective_bound");
    ASSERT_NE(c, nullptr) << kernel;
    bool deepep = std::string(kernel).find("dpsk") != std::string::npos;
    bool sharded = std::string(kernel).find("AllGather") != std::string::npos;
    EXPECT_EQ(c->fix.summary.find("all-to-all") != std::string::npos, deepep) << c->fix.summary;
    EXPECT_EQ(c->fix.pytorch.find("forward_prefetch=True") != std::string::npos, sharded) << c->fix.pytorch;
    EXPECT_EQ(c->fix.pytorch.find("DistributedDataParallel") != std::string::npos, !deepep && !sharded) << c->fix.pytorch;
  }
}

// cuBLASLt's nvjet GEMMs name no precision: they are no evidence of fp32. A bf16 run whose
// GEMMs are nvjet gets no mixed-precision advice; an fp32 run with the same GEMMs does.
TEST(Coverage, UnstatedPrecisionIsNoEvidenceOfFp32) {
  for (const char* eltwise : {"void at::native::vectorized_elementwise_kernel<4, c10::BFloat16>",
                              "void at::native::vectorized_elementwise_kernel<4, float>"}) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      double t0 = i * 10000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t0, 10000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 10, 10, "{\"correlation\":" + std::to_string(2 * i + 1) + "}");
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 30, 10, "{\"correlation\":" + std::to_string(2 * i + 2) + "}");
      ev += X("kernel", "nvjet_sm90_tst_128x128_64x6_1x2_h_bz_NTT", 0, 7, t0 + 50, 7000,
              "{\"correlation\":" + std::to_string(2 * i + 1) + ",\"device\":0}");
      ev += X("kernel", eltwise, 0, 7, t0 + 7100, 2800, "{\"correlation\":" + std::to_string(2 * i + 2) + ",\"device\":0}");
    }
    Report r = AnalyzeJson(Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100\",\"computeMajor\":9}]"));
    const Finding* c = Find(r, "compute_bound");
    ASSERT_NE(c, nullptr) << eltwise;
    bool bf16 = std::string(eltwise).find("BFloat16") != std::string::npos;
    EXPECT_EQ(c->fix.summary.find("mixed precision") == std::string::npos, bf16) << eltwise << ": " << c->fix.summary;
  }
}

}  // namespace
}  // namespace stepdoctor
