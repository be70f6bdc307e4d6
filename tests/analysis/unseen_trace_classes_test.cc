// Classes of traces the rules once read wrongly, each built inline so the mechanism is tested on
// both sides of its condition: settings the trace shows in use (pinned memory) leave the advice;
// a first-use kernel launch that loads code is start-up, and so is a first runtime query far
// slower than its later calls; an asynchronous copy call that holds the
// host is a blocking copy; slow steps that wait for a batch are the input fix's, not a stall; a
// device that ran only copies gets no mixed-precision prediction; a host API tracer's trace is
// not a device tracer that lost its records; a TF1 op placed on the CPU is CPU work.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/framework_code.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/whatif.h"
#include "stepdoctor/model/runtime_calls.h"
#include "predict_util.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::Tf1Lane;
using testing::Tf1Op;
using testing::X;
using testing::PredictFix;
using testing::StreamKernel;

constexpr const char* kA100 =
    ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"computeMajor\":8,\"computeMinor\":0}]";


Report AnalyzeJson(const std::string& json) { return AnalyzeTrace(testing::ImportChrome(json)); }


// --- pinned memory: the advice leaves pin_memory=True out where copies read pinned memory

TEST(UnseenClasses, PinMemoryArgumentLeavesEachFormOfLoaderCall) {
  EXPECT_EQ(WithoutPinMemoryArg("loader = DataLoader(ds,\n    pin_memory=True,   # async copies\n    num_workers=4)"),
            "loader = DataLoader(ds,\n    num_workers=4)");
  EXPECT_EQ(WithoutPinMemoryArg("DataLoader(ds, num_workers=8, pin_memory=True, persistent_workers=True)"),
            "DataLoader(ds, num_workers=8, persistent_workers=True)");
  EXPECT_EQ(WithoutPinMemoryArg("DataLoader(ds, num_workers=8, pin_memory=True)"), "DataLoader(ds, num_workers=8)");
  // First on a continuation line with more arguments after it: only the argument goes.
  EXPECT_EQ(WithoutPinMemoryArg("DataLoader(ds,\n      pin_memory=True, prefetch_factor=4)"),
            "DataLoader(ds,\n      prefetch_factor=4)");
  EXPECT_EQ(WithoutPinMemoryArg("ds = ds.prefetch(2)"), "ds = ds.prefetch(2)");
}

// A GPU step that waits 40 ms on a multi-process DataLoader, copies the batch, then computes (or,
// without `gemm`, only copies).
std::string LoaderCopyLoop(const char* copy_name, bool gemm = true) {
  std::string ev;
  int corr = 1;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 60000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 60000);
    ev += X("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1, 1, t, 40000);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 40000, 20, testing::Corr(corr));
    ev += StreamKernel(copy_name, t + 40030, 500, corr++, "gpu_memcpy");
    if (!gemm) continue;
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 40100, 10, testing::Corr(corr));
    ev += StreamKernel("ampere_sgemm_128x64_nn", t + 40600, 15000, corr++);
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 40200, 15500);
  }
  return Doc(ev, kA100);
}

TEST(UnseenClasses, PinnedCopiesMeanPinMemoryIsInUse) {
  Trace pinned = testing::ImportChrome(LoaderCopyLoop("Memcpy HtoD (Pinned -> Device)"));
  Trace pageable = testing::ImportChrome(LoaderCopyLoop("Memcpy HtoD (Pageable -> Device)"));
  EXPECT_TRUE(TraceToAppliedOptimizations(pinned, PrimaryWorker(pinned)).pinned_memory);
  EXPECT_FALSE(TraceToAppliedOptimizations(pageable, PrimaryWorker(pageable)).pinned_memory);

  Report with_pin = AnalyzeTrace(pinned);
  const Finding* in = testing::FindFinding(with_pin, "input_bound");
  ASSERT_NE(in, nullptr) << with_pin.verdict.summary;
  EXPECT_EQ(in->fix.pytorch.find("pin_memory=True"), std::string::npos) << in->fix.pytorch;
  EXPECT_NE(testing::EvidenceText(*in).find("pinned memory"), std::string::npos);
  bool listed = false;
  for (const auto& a : with_pin.coverage.applied) listed |= a == "pinned memory";
  EXPECT_TRUE(listed);

  Report without = AnalyzeTrace(pageable);
  const Finding* in2 = testing::FindFinding(without, "input_bound");
  ASSERT_NE(in2, nullptr);
  EXPECT_NE(in2->fix.pytorch.find("pin_memory=True"), std::string::npos) << in2->fix.pytorch;
}

// --- first-use launches and device-code loads are start-up

// Three steps; in the first, one launch call takes `first_launch_ms` while the device is idle
// (or, with `busy`, while an earlier kernel still runs).
std::string FirstLaunchLoop(double first_launch_ms, bool busy, bool same_kernel_before) {
  std::string ev;
  int corr = 1;
  for (int i = 0; i < 3; ++i) {
    const double t = i * 20000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 20000);
    double h = t + 100;
    if (i == 0 && same_kernel_before) {
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, h, 10, testing::Corr(corr));
      ev += StreamKernel("elementwise_add", h + 20, 50, corr++);
      h += 200;
    }
    if (i == 0 && busy) {
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, h, 10, testing::Corr(corr));
      ev += StreamKernel("long_gemm", h + 20, first_launch_ms * 1000 + 500, corr++);
      h += 20;
    }
    const double dur = i == 0 ? first_launch_ms * 1000 : 10;
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, h, dur, testing::Corr(corr));
    const double k = busy && i == 0 ? h + dur + 600 : h + dur + 5;
    ev += StreamKernel("elementwise_add", k, 100, corr++);
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, h + dur + 10, 800);
  }
  return Doc(ev, kA100);
}

TEST(UnseenClasses, AFirstUseLaunchWithTheDeviceIdleIsStartup) {
  Trace lazy = testing::ImportChrome(FirstLaunchLoop(8, false, false));
  const WorkerId w = PrimaryWorker(lazy);
  const StepWindows steps = TraceToSteps(lazy, w);
  ASSERT_EQ(LazyLoadLaunches(lazy, w, INT64_MIN / 4, INT64_MAX / 4).size(), 1u);
  StepSignals s = TraceToStepSignals(lazy, w, steps);
  EXPECT_GT(s.startup_ms, 0);

  // Shorter than kLazyLoadLaunchNs: a launch, however slow.
  Trace short_call = testing::ImportChrome(FirstLaunchLoop(0.5, false, false));
  EXPECT_TRUE(LazyLoadLaunches(short_call, PrimaryWorker(short_call), INT64_MIN / 4, INT64_MAX / 4).empty());
  // The device busy during the call: a full launch queue, the device's pace.
  Trace queue = testing::ImportChrome(FirstLaunchLoop(8, true, false));
  EXPECT_TRUE(LazyLoadLaunches(queue, PrimaryWorker(queue), INT64_MIN / 4, INT64_MAX / 4).empty());
  // The kernel ran before: not its first use.
  Trace again = testing::ImportChrome(FirstLaunchLoop(8, false, true));
  EXPECT_TRUE(LazyLoadLaunches(again, PrimaryWorker(again), INT64_MIN / 4, INT64_MAX / 4).empty());
}

// A cold first pass of a small model, no steps: first launches that load their kernel's code take
// 1.3-19 ms, the first occupancy query 4.4 ms (lazy loading answers it by loading the kernel), and
// later launches and queries a few microseconds. Each load is start-up (under the 50 ms one-off
// rule), and the launch median that host_bound quotes is of the warm launches alone. An occupancy
// query slow on every call sets nothing up: it stays the window's cost.
std::string ColdPass(bool every_query_slow) {
  std::string ev;
  int corr = 1;
  double h = 0;
  const double first_launch_us[] = {1300, 6800, 18900, 8800, 12, 9, 13};
  for (int i = 0; i < 7; ++i) {
    const std::string op = "aten::op" + std::to_string(i);
    const double q = every_query_slow || i == 0 ? 4400 : 5;
    ev += X("cpu_op", op.c_str(), 1, 1, h, first_launch_us[i] + q + 40);
    ev += X("cuda_runtime", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", 1, 1, h + 10, q);
    const double l = h + 20 + q;
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, l, first_launch_us[i], testing::Corr(corr));
    ev += StreamKernel(("kernel_" + std::to_string(i)).c_str(), l + first_launch_us[i] + 5, 2, corr++);
    h += first_launch_us[i] + q + 60;
  }
  ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, h, 20);
  return Doc(ev, kA100);
}

TEST(UnseenClasses, AColdPassCountsItsShortLoadsAsStartup) {
  Trace cold = testing::ImportChrome(ColdPass(false));
  const WorkerId w = PrimaryWorker(cold);
  StepSignals s = TraceToStepSignals(cold, w, TraceToSteps(cold, w));
  // The four loading launches (1.3 + 6.8 + 18.9 + 8.8 ms) and the first query (4.4 ms).
  EXPECT_NEAR(s.startup_ms, 1.3 + 6.8 + 18.9 + 8.8 + 4.4, 0.05);
  EXPECT_NEAR(s.median_launch_us, 12, 0.5);  // the warm launches: 9, 12, 13 us
  Report r = AnalyzeTrace(cold);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].id, "cold_start") << r.verdict.summary;

  Trace slow = testing::ImportChrome(ColdPass(true));
  const WorkerId ws = PrimaryWorker(slow);
  StepSignals q = TraceToStepSignals(slow, ws, TraceToSteps(slow, ws));
  EXPECT_NEAR(q.startup_ms, 1.3 + 6.8 + 18.9 + 8.8, 0.05);  // the loads, no query
}

// A slow driver allocation or free (cudaFree 11 ms: a library handle created on first use) inside
// the first call of the outermost operator around it, and in none of its later calls, is start-up;
// where a later call frees too, the operator allocates as it goes and none counts.
std::string FreesInsideCalls(bool later_too) {
  std::string ev;
  int corr = 1;
  for (int k = 0; k < 3; ++k) {
    const double t = k * 20000.0;
    ev += X("cpu_op", "aten::linear", 1, 1, t, 15000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + 10, 14900);  // dispatched again: the inner call
    if (k == 0 || later_too) ev += X("cuda_runtime", "cudaFree", 1, 1, t + 100, 11000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 11200, 10, testing::Corr(corr));
    ev += StreamKernel("ampere_sgemm_32x32", t + 11300, 500, corr++);
  }
  return Doc(ev, kA100);
}

TEST(UnseenClasses, AFreeInsideAnOperatorsFirstCallIsStartupBothSides) {
  Trace first = testing::ImportChrome(FreesInsideCalls(false));
  const WorkerId w = PrimaryWorker(first);
  const auto found = SetupAllocationsInFirstCalls(first, w, INT64_MIN / 4, INT64_MAX / 4);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(first.str(found[0].name), "cudaFree");
  StepSignals s = TraceToStepSignals(first, w, TraceToSteps(first, w));
  EXPECT_NEAR(s.startup_ms, 11.0, 0.01);

  Trace every = testing::ImportChrome(FreesInsideCalls(true));
  EXPECT_TRUE(SetupAllocationsInFirstCalls(every, PrimaryWorker(every), INT64_MIN / 4, INT64_MAX / 4).empty());
}

TEST(UnseenClasses, DeviceCodeLoadsAreStartupAndLongAsyncCopiesBlock) {
  EXPECT_EQ(RuntimeCallRoleOf("hipModuleLoadData", 500'000, false), RuntimeCallRole::kStartup);
  EXPECT_EQ(RuntimeCallRoleOf("cuLibraryLoadData", 100'000, false), RuntimeCallRole::kStartup);
  EXPECT_EQ(RuntimeCallRoleOf("cuModuleLoadData", 100'000, true), RuntimeCallRole::kLaunch);  // every step: not start-up
  EXPECT_EQ(RuntimeCallRoleOf("cudaMemcpyAsync", kBlockingAsyncCopyNs, false), RuntimeCallRole::kBlockingCopy);
  EXPECT_EQ(RuntimeCallRoleOf("cuMemcpyDtoHAsync_v2", kBlockingAsyncCopyNs - 1, false), RuntimeCallRole::kLaunch);
}

// Driver allocations and frees are memory management, not launches: short or recurring, an
// allocator call; one long one is start-up (cudaFree(0) making the context); stream-ordered
// *Async ones enqueue like a launch.
TEST(UnseenClasses, DriverAllocationsAreNoLaunches) {
  EXPECT_EQ(RuntimeCallRoleOf("hipFree", 2'000'000, false), RuntimeCallRole::kAllocator);
  EXPECT_EQ(RuntimeCallRoleOf("cudaMalloc", 30'000, false), RuntimeCallRole::kAllocator);
  EXPECT_EQ(RuntimeCallRoleOf("cuMemFree_v2", 30'000, false), RuntimeCallRole::kAllocator);
  EXPECT_EQ(RuntimeCallRoleOf("cudaFree", kOneOffRuntimeNs + 1, false), RuntimeCallRole::kStartup);
  EXPECT_EQ(RuntimeCallRoleOf("cudaFree", kOneOffRuntimeNs + 1, true), RuntimeCallRole::kAllocator);
  EXPECT_EQ(RuntimeCallRoleOf("cudaFreeAsync", 30'000, false), RuntimeCallRole::kLaunch);
  EXPECT_EQ(RuntimeCallRoleOf("hipLaunchKernel", 30'000, false), RuntimeCallRole::kLaunch);
}

// Steps whose host time is mostly hipFree while the device idles: host-bound on allocations,
// with the caching allocator's advice and no launch breakdown; the same time in launches is
// launch time.
TEST(UnseenClasses, HostTimeInFreesIsAllocatorNotLaunchBothSides) {
  auto loop = [](const char* call) {
    std::string ev;
    int corr = 1;
    for (int i = 0; i < 4; ++i) {
      const double t = i * 10'000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10'000);
      ev += X("cpu_op", "aten::conv2d", 1, 1, t + 10, 9'900);
      for (int k = 0; k < 8; ++k) ev += X("cuda_runtime", call, 1, 1, t + 100 + k * 1'000, 900);
      ev += X("cuda_runtime", "hipLaunchKernel", 1, 1, t + 8'200, 20, testing::Corr(corr));
      ev += StreamKernel("igemm_fwd", t + 8'300, 1'000, corr++);
    }
    return AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  };
  auto launch_ms = [](const Report& r) {
    for (const auto& b : r.breakdown)
      if (b.category == "kernel_launch") return b.ms_per_step;
    return 0.0;
  };
  const Report frees = loop("hipFree");
  const Finding* f = testing::FindFinding(frees, "host_bound");
  ASSERT_NE(f, nullptr) << frees.verdict.summary;
  EXPECT_NE(f->title.find("allocations and frees"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.pytorch.find("expandable_segments"), std::string::npos);
  EXPECT_EQ(f->fix.pytorch.find("torch.compile("), std::string::npos) << f->fix.pytorch;
  EXPECT_LT(launch_ms(frees), 1.0);
  const Report launches = loop("hipLaunchKernelExC");
  EXPECT_GT(launch_ms(launches), 5.0);
  const Finding* g = testing::FindFinding(launches, "host_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->title.find("allocations"), std::string::npos) << g->title;
}

// A whole-window trace dominated by start-up: no high finding about the step, and no prediction.
TEST(UnseenClasses, AColdFirstPassGetsNoHighStepFindingAndNoPrediction) {
  std::string ev = X("cpu_op", "aten::conv2d", 1, 1, 0, 12000);
  ev += X("cuda_runtime", "hipModuleLoadData", 1, 1, 100, 2000);
  ev += X("cuda_runtime", "hipLaunchKernel", 1, 1, 2200, 7700, testing::Corr(1));
  ev += StreamKernel("igemm_fwd", 9950, 10, 1);
  ev += X("cpu_op", "aten::add_", 1, 1, 12100, 3000);
  ev += X("cuda_runtime", "hipLaunchKernel", 1, 1, 12200, 60, testing::Corr(2));
  ev += StreamKernel("elementwise_add", 12300, 5, 2);
  Report r = AnalyzeJson(Doc(ev, kA100));
  EXPECT_EQ(r.coverage.confidence, "low");
  const Finding* cold = testing::FindFinding(r, "cold_start");
  ASSERT_NE(cold, nullptr) << r.verdict.summary;
  for (const Finding& f : r.findings) {
    if (f.id == "cold_start") continue;
    EXPECT_NE(f.severity, FindingSeverity::kHigh) << f.id;
    if (f.prediction) {
      EXPECT_FALSE(f.prediction->predicted) << f.id;
    }
  }
}

// --- slow steps that wait for a batch; a device that only copies

TEST(UnseenClasses, SlowStepsThatWaitForABatchAreTheInputFixs) {
  // Every 4th step waits 300 ms for a batch, the others 1 ms: four workers behind the step.
  std::string ev;
  double t = 0;
  for (int i = 0; i < 12; ++i) {
    const double wait = i % 4 == 0 ? 300000 : 1000;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, wait + 20000);
    ev += X("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1, 1, t, wait);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + wait, 20000);
    t += wait + 20000;
  }
  Trace tr = testing::ImportChrome(Doc(ev));
  Prediction stalls = PredictFix(tr, "stalls");
  EXPECT_FALSE(stalls.predicted);
  EXPECT_NE(stalls.why_not.find("wait for a batch"), std::string::npos) << stalls.why_not;
  Report r = AnalyzeTrace(tr);
  const Finding* out = testing::FindFinding(r, "step_time_outliers");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(testing::FindFinding(r, "input_bound"), nullptr);
  EXPECT_EQ(out->whatif_fix, "input");
  EXPECT_EQ(out->severity, FindingSeverity::kLow);
  EXPECT_NE(out->gain_text.find("input_bound"), std::string::npos);

  // Slow steps from something else (a long operator): a stall the fix removes.
  std::string ev2;
  t = 0;
  for (int i = 0; i < 12; ++i) {
    const double extra = i % 4 == 0 ? 300000 : 0;
    ev2 += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 21000 + extra);
    ev2 += X("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1, 1, t, 1000);
    ev2 += X("cpu_op", "aten::addmm", 1, 1, t + 1000, 20000 + extra);
    t += 21000 + extra;
  }
  EXPECT_TRUE(PredictFix(testing::ImportChrome(Doc(ev2)), "stalls").predicted);
}

TEST(UnseenClasses, AmpOnADeviceThatOnlyCopiedSaysSo) {
  Trace copies = testing::ImportChrome(LoaderCopyLoop("Memcpy HtoD (Pinned -> Device)"));
  // The same loop less its GEMM: only the copy ran on the device.
  Prediction only = PredictFix(testing::ImportChrome(LoaderCopyLoop("Memcpy HtoD (Pinned -> Device)", false)), "amp");
  EXPECT_FALSE(only.predicted);
  EXPECT_NE(only.why_not.find("no compute kernels"), std::string::npos) << only.why_not;
  EXPECT_TRUE(PredictFix(copies, "amp").predicted);  // an fp32 GEMM beside the copy: there is something to speed up
}

TEST(UnseenClasses, CpuWorkOnACpuOnlyTraceSaysThereIsNoDevice) {
  Prediction p = PredictFix(testing::ImportChrome(testing::DataLoaderLoop(5, 5, 40)), "cpuwork");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("CPU-only"), std::string::npos) << p.why_not;
}

// --- a host API tracer is not a device tracer

TEST(UnseenClasses, AHostApiTracerDidNotLoseDeviceRecords) {
  // An interposer's trace: driver calls with no category, no correlation ids, no profiler metadata.
  std::string ev;
  for (int i = 0; i < 6; ++i) {
    const double t = i * 10000.0;
    ev += ",{\"ph\":\"X\",\"name\":\"cuMemcpyHtoDAsync_v2\",\"pid\":7,\"tid\":7,\"ts\":" + std::to_string(t) + ",\"dur\":300}";
    ev += ",{\"ph\":\"X\",\"name\":\"cuLaunchKernel\",\"pid\":7,\"tid\":7,\"ts\":" + std::to_string(t + 400) + ",\"dur\":20}";
    ev += ",{\"ph\":\"X\",\"name\":\"cuStreamSynchronize\",\"pid\":7,\"tid\":7,\"ts\":" + std::to_string(t + 500) + ",\"dur\":900}";
  }
  Report api = AnalyzeJson("{\"traceEvents\":[" + ev.substr(1) + "]}");
  const Finding* f = testing::FindFinding(api, "device_activity_missing");
  ASSERT_NE(f, nullptr) << api.verdict.summary;
  EXPECT_EQ(testing::EvidenceText(*f).find("recorded, then lost"), std::string::npos) << testing::EvidenceText(*f);
  EXPECT_NE(testing::EvidenceText(*f).find("host API calls only"), std::string::npos);

  // Kineto's runtime calls carry correlation ids: its device records were lost.
  std::string kineto;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10000.0;
    kineto += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
    kineto += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 10, testing::Corr(i + 1));
    kineto += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 200, 9000);
  }
  Report lost = AnalyzeJson(Doc(kineto, kA100));
  const Finding* g = testing::FindFinding(lost, "device_activity_missing");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(testing::EvidenceText(*g).find("recorded, then lost"), std::string::npos);
}

// --- a TF1 op placed on the CPU is CPU work

TEST(UnseenClasses, Tf1OpsOnTheCpuLaneAreCpuWork) {
  std::string ev = Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute") +
                   Tf1Lane(2, "/job:localhost/replica:0/task:0/device:GPU:0 Compute") +
                   Tf1Lane(3, "/device:GPU:0/stream:all Compute") + Tf1Lane(4, "/device:GPU:0/stream:13 Compute");
  ev += Tf1Op(1, "LookupTableFindV2", 100, 4800);
  ev += Tf1Op(1, "_Recv", 50, 2000);  // the executor's transfer, not CPU compute
  ev += Tf1Op(2, "MatMul", 5000, 300);
  ev += Tf1Op(3, "MatMul", 5100, 4000);
  ev += Tf1Op(4, "MatMul", 5100, 4000);
  ev += Tf1Op(1, "Unique", 9200, 3600);
  Trace t = testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}");
  ASSERT_TRUE(t.worker(PrimaryWorker(t)).tf1_session);
  StepSignals s = TraceToStepSignals(t, PrimaryWorker(t), TraceToSteps(t, PrimaryWorker(t)));
  EXPECT_NEAR(s.host_cpu_op_ms, 4.8 + 3.6, 0.05);
}

// --- the host blocked on the device while the record shows it idle

TEST(UnrecordedDeviceWorkRule, HostWaitsOnUnrecordedDeviceWorkBothSides) {
  // Each 20 ms step: a launch, then the host blocks `idle_ms` in a synchronize while nothing runs,
  // then the kernel (2 ms) the wait ends with: work before it on the device was not recorded.
  auto doc = [](double idle_ms) {
    std::string ev;
    for (int i = 0; i < 4; ++i) {
      const double t = i * 20000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 20000);
      ev += X("cpu_op", "aten::mm", 1, 1, t, 17000 - idle_ms * 1000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 10, testing::Corr(i + 1));
      ev += X("cuda_runtime", "cudaStreamSynchronize", 1, 1, t + 17000 - idle_ms * 1000, idle_ms * 1000 + 2100);
      ev += StreamKernel("ampere_sgemm_128x64_nn", t + 17000, 2000, i + 1);
    }
    return Doc(ev, kA100);
  };
  const double over = 20.0 * (kUnrecordedDeviceWorkPct + 10) / 100, under = 20.0 * (kUnrecordedDeviceWorkPct - 10) / 100;
  Report missing = AnalyzeJson(doc(over));
  const Finding* f = testing::FindFinding(missing, "unrecorded_device_work");
  ASSERT_NE(f, nullptr) << missing.verdict.summary;
  EXPECT_NEAR(f->share_pct, kUnrecordedDeviceWorkPct + 10, 1.5);
  EXPECT_EQ(missing.coverage.confidence, "low");
  Report fine = AnalyzeJson(doc(under));
  EXPECT_EQ(testing::FindFinding(fine, "unrecorded_device_work"), nullptr) << fine.verdict.summary;
  // The advice waits for the device before the window, in the loop the window ran: aten ops
  // with no backward are inference steps, not a training loop; an optimizer step trains.
  EXPECT_NE(f->fix.pytorch.find("torch.cuda.synchronize()"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.pytorch.find("torch.inference_mode()"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.pytorch.find("train_step"), std::string::npos) << f->fix.pytorch;
  std::string trains = doc(over);
  trains.insert(trains.size() - 2, X("user_annotation", "Optimizer.step#SGD.step", 1, 1, 16500 - over * 1000, 100));
  Report training = AnalyzeJson(trains);
  const Finding* t = testing::FindFinding(training, "unrecorded_device_work");
  ASSERT_NE(t, nullptr) << training.verdict.summary;
  EXPECT_NE(t->fix.pytorch.find("train_step(batch)"), std::string::npos) << t->fix.pytorch;
}

// The host blocked on unrecorded device work for more of the step than the host's own share: the
// record is too partial to call the step host-bound; with the wait under the host's share, the
// host-bound verdict stands.
TEST(UnrecordedDeviceWorkRule, OutweighsALesserNamedBottleneckBothSides) {
  auto doc = [](double host_ms, double wait_ms) {
    std::string ev;
    for (int i = 0; i < 4; ++i) {
      const double t = i * 20000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 20000);
      ev += X("cpu_op", "aten::_coalesce", 1, 1, t, host_ms * 1000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 10, testing::Corr(i + 1));
      ev += X("cuda_runtime", "cudaStreamSynchronize", 1, 1, t + host_ms * 1000, wait_ms * 1000);
      ev += StreamKernel("ampere_sgemm_128x64_nn", t + (host_ms + wait_ms) * 1000 - 100, 100, i + 1);
    }
    return Doc(ev, kA100);
  };
  Report partial = AnalyzeJson(doc(3, 16));
  ASSERT_NE(testing::FindFinding(partial, "unrecorded_device_work"), nullptr) << partial.verdict.summary;
  EXPECT_EQ(partial.verdict.summary.rfind("no single bottleneck identified: the host waits on the device", 0), 0u)
      << partial.verdict.summary;
  EXPECT_EQ(partial.verdict.bottleneck, Bottleneck::kUnknown);
  Report host = AnalyzeJson(doc(12, 7));
  ASSERT_NE(testing::FindFinding(host, "unrecorded_device_work"), nullptr) << host.verdict.summary;
  EXPECT_NE(host.verdict.bottleneck, Bottleneck::kUnknown) << host.verdict.summary;
}

// A TF1 GPU op called once that holds its op-level lane 200 ms while its kernels run 2 ms set up
// (library handles, autotuning): start-up, and the one-step window is a cold pass; with its
// kernels busy a fifth of it, it is the op's work.
TEST(UnseenClasses, ATf1GpuOpCalledOnceThatBarelyUsesTheDeviceIsSetup) {
  auto doc = [](double kernel_ms) {
    std::string ev = Tf1Lane(2, "/job:localhost/replica:0/task:0/device:GPU:0 Compute") +
                     Tf1Lane(3, "/device:GPU:0/stream:all Compute") + Tf1Lane(4, "/device:GPU:0/stream:13 Compute");
    ev += Tf1Op(2, "MatMul", 100, 200000);
    ev += Tf1Op(3, "MatMul", 200000 - kernel_ms * 1000, kernel_ms * 1000);
    ev += Tf1Op(4, "MatMul", 200000 - kernel_ms * 1000, kernel_ms * 1000);
    ev += Tf1Op(2, "Relu", 200200, 100);
    ev += Tf1Op(4, "Relu", 200250, 50);
    return "{\"traceEvents\":[" + ev.substr(1) + "]}";
  };
  Trace cold = testing::ImportChrome(doc(2));
  ASSERT_TRUE(cold.worker(PrimaryWorker(cold)).tf1_session);
  StepSignals s = TraceToStepSignals(cold, PrimaryWorker(cold), TraceToSteps(cold, PrimaryWorker(cold)));
  EXPECT_GT(s.startup_ms, 150);
  EXPECT_FALSE(PredictFix(cold, "launch").predicted);
  Trace busy = testing::ImportChrome(doc(40));
  StepSignals b = TraceToStepSignals(busy, PrimaryWorker(busy), TraceToSteps(busy, PrimaryWorker(busy)));
  EXPECT_LT(b.startup_ms, 1);
}

// CPU convolutions oneDNN did not take run PyTorch's reference loops: said, with the layers to
// check; none said where every convolution took oneDNN. Thread counts are checked, not set.
TEST(UnseenClasses, CpuConvolutionsOnTheReferencePathAreNamed) {
  auto doc = [](const char* inner) {
    std::string ev;
    for (int i = 0; i < 6; ++i) {
      const double t = i * 3000.0;
      ev += X("cpu_op", "aten::conv2d", 1, 1, t, 2500);
      ev += X("cpu_op", inner, 1, 1, t + 50, 2400);
    }
    return Doc(ev);
  };
  Report slow = AnalyzeJson(doc("aten::thnn_conv2d"));
  const Finding* f = testing::FindFinding(slow, "compute_bound");
  ASSERT_NE(f, nullptr) << slow.verdict.summary;
  EXPECT_NE(testing::EvidenceText(*f).find("reference path"), std::string::npos) << testing::EvidenceText(*f);
  EXPECT_EQ(f->fix.pytorch.find("set_num_threads(os.cpu_count())"), std::string::npos);
  Report fast = AnalyzeJson(doc("aten::mkldnn_convolution"));
  const Finding* g = testing::FindFinding(fast, "compute_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(testing::EvidenceText(*g).find("reference path"), std::string::npos);
}

// XLA on a TensorFlow graph still launches its clusters from the host (_XlaLaunch, about 0.5 ms a
// step on the measured TF1 pairs): the launch fix's prediction keeps that floor and a share of the
// executor's work, not one 20 us graph launch.
TEST(UnseenClasses, XlaOnATf1GraphKeepsItsClusterLaunchOnTheHost) {
  std::string ev = Tf1Lane(2, "/job:localhost/replica:0/task:0/device:GPU:0 Compute") +
                   Tf1Lane(3, "/device:GPU:0/stream:all Compute") + Tf1Lane(4, "/device:GPU:0/stream:13 Compute");
  for (int k = 0; k < 10; ++k) {  // ten 200 us ops, each running a 10 us kernel at its end
    const double t = 100 + k * 200.0;
    ev += Tf1Op(2, k % 2 ? "MatMul" : "BiasAdd", t, 190);
    ev += Tf1Op(3, k % 2 ? "MatMul" : "BiasAdd", t + 180, 10);
    ev += Tf1Op(4, k % 2 ? "MatMul" : "BiasAdd", t + 180, 10);
  }
  Trace t = testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}");
  ASSERT_TRUE(t.worker(PrimaryWorker(t)).tf1_session);
  Prediction p = PredictFix(t, "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_GE(p.low_ms, 0.5);                   // the clusters' launch stays
  EXPECT_GT(p.predicted_step_ms, p.low_ms);   // and, at the point, a quarter of the executor's work
  EXPECT_GE(p.high_ms, p.predicted_step_ms);
  EXPECT_LT(p.predicted_step_ms, p.baseline_step_ms);
  bool says = false;
  for (const auto& a : p.assumptions) says |= a.find("_XlaLaunch") != std::string::npos;
  EXPECT_TRUE(says);
}

// XLA's auto-clustering leaves CPU ops alone without TF_XLA_FLAGS: a CPU-only TF1 graph's XLA
// advice sets it; a GPU one's does not need it.
TEST(UnseenClasses, XlaAdviceForACpuGraphSetsTheCpuJitFlag) {
  std::string ev = Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  for (int k = 0; k < 40; ++k) ev += Tf1Op(1, k % 2 ? "Add" : "Mul", 100 + k * 50.0, 5);  // tiny ops, gaps between
  Report r = AnalyzeJson("{\"traceEvents\":[" + ev.substr(1) + "]}");
  std::string code;
  for (const Finding& f : r.findings) code += f.fix.tensorflow;
  ASSERT_NE(code.find("global_jit_level"), std::string::npos) << r.verdict.summary;  // the TF1 session form
  EXPECT_EQ(code.find("tf.config.optimizer.set_jit"), std::string::npos) << code;
  EXPECT_NE(code.find("--tf_xla_cpu_global_jit"), std::string::npos) << code;
  EXPECT_EQ(code.find("set_intra_op_parallelism_threads(os.cpu_count())"), std::string::npos);
}

// A Chrome trace of a program's own spans (no category, no framework) says where the time went,
// not what bounds it: confidence low, and the one call holding most of the window named. The same
// spans with Kineto's categories are operators and keep their confidence.
TEST(UnseenTraceClasses, ProgramSpansOnlyLowerTheConfidenceBothSides) {
  auto trace = [](const char* cat) {
    std::string ev = "{\"traceEvents\":[";
    ev += "{\"ph\":\"X\",\"name\":\"Creating wrapper\",\"pid\":1,\"tid\":7,\"ts\":0,\"dur\":80000" +
          std::string(cat) + "}";
    for (int k = 0; k < 40; ++k)
      ev += ",{\"ph\":\"X\",\"name\":\"Executing ops\",\"pid\":1,\"tid\":7,\"ts\":" + std::to_string(80010 + k * 500) +
            ",\"dur\":480" + cat + "}";
    return ev + "]}";
  };
  const Report plain = AnalyzeJson(trace(""));
  EXPECT_EQ(plain.coverage.confidence, "low");
  bool named = false;
  for (const std::string& n : plain.notes) named |= n.find("one call, 'Creating wrapper', holds 80.0%") != std::string::npos;
  EXPECT_TRUE(named);
  const Report ops = AnalyzeJson(trace(",\"cat\":\"cpu_op\""));
  for (const std::string& n : ops.notes) EXPECT_EQ(n.find("program's own spans"), std::string::npos) << n;
}

}  // namespace
}  // namespace stepdoctor
