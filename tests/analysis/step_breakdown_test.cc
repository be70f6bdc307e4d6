// The host-view step breakdown on small traces built in the test, where every category's
// time is known exactly.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"

namespace stepdoctor {
namespace {

constexpr int64_t kMs = 1'000'000;

struct Builder {
  Trace t;
  WorkerId w;
  TimelineId host, stream;
  explicit Builder(bool gpu) {
    w = t.AddWorker({});
    DeviceId cpu = t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0);
    host = t.AddTimeline(w, cpu, TimelineKind::kHostThread, 1, "main");
    if (gpu) stream = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s7");
  }
  void Host(int64_t s, int64_t d, EventKind k, const char* name = "op") {
    t.timeline(host).Add(s, d, t.strings.Intern(name), k);
  }
  void Dev(int64_t s, int64_t d, EventKind k) { t.timeline(stream).Add(s, d, t.strings.Intern("k"), k); }
  StepSignals Run() {
    t.Finalize();
    return TraceToStepSignals(t, w, TraceToSteps(t, w));
  }
};

double Cat(const StepSignals& s, StepCategory c) { return s.category_ms[int(c)]; }

TEST(StepBreakdown, GpuPriorities) {
  Builder b(/*gpu=*/true);
  // One 100 ms step.
  b.Host(0, 100 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(0, 30 * kMs, EventKind::kInputWait, "enumerate(DataLoader)#x.__next__");  // 0-30
  b.Dev(20 * kMs, 40 * kMs, EventKind::kKernel);                                    // 20-60: hides 10 ms of input
  b.Host(60 * kMs, 10 * kMs, EventKind::kRuntime, "cudaLaunchKernel");               // 60-70 launch, device idle
  b.Host(70 * kMs, 10 * kMs, EventKind::kFrameworkOp);                                // 70-80 host compute
  b.Dev(80 * kMs, 5 * kMs, EventKind::kMemcpyH2D);                                  // 80-85
  b.Dev(85 * kMs, 5 * kMs, EventKind::kCollective);                                 // 85-90
  // 90-100: nothing -> other
  StepSignals s = b.Run();
  ASSERT_EQ(s.step_count, 1);
  EXPECT_FALSE(s.cpu_only);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kInput), 20);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kDeviceCompute), 40);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kKernelLaunch), 10);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kHostCompute), 10);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kMemcpy), 5);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kCollectives), 5);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kOther), 10);
  EXPECT_DOUBLE_EQ(s.input_wait_ms, 30);  // the host waited 30 ms; 20 of them exposed
  EXPECT_DOUBLE_EQ(s.device_busy_pct, 50);
}

TEST(StepBreakdown, CpuOnlyOperatorsAreTheDevice) {
  Builder b(/*gpu=*/false);
  b.Host(0, 100 * kMs, EventKind::kStepMarker, "ProfilerStep#3");
  b.Host(0, 40 * kMs, EventKind::kInputWait, "enumerate(DataLoader)#x.__next__");
  b.Host(5 * kMs, 20 * kMs, EventKind::kFrameworkOp, "aten::copy_");  // inside the input wait: input
  b.Host(50 * kMs, 30 * kMs, EventKind::kFrameworkOp, "aten::conv2d");  // top-level: compute
  b.Host(55 * kMs, 10 * kMs, EventKind::kFrameworkOp, "aten::mm");      // nested: already counted
  for (int i = 0; i < 100; ++i) b.Host(85 * kMs + i * 50'000, 5'000, EventKind::kFrameworkOp, "aten::add");  // tiny
  StepSignals s = b.Run();
  ASSERT_EQ(s.step_count, 1);
  EXPECT_TRUE(s.cpu_only);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kInput), 40);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kDeviceCompute), 30);
  // Tiny ops and the short gaps between them (85-90 ms) are host overhead; the gaps of 1 ms or
  // more with nothing recorded (40-50, 80-85, 90-100) are host time the trace does not explain.
  EXPECT_NEAR(Cat(s, StepCategory::kHostCompute), 5, 0.05);
  EXPECT_NEAR(Cat(s, StepCategory::kOther), 25, 0.05);
  EXPECT_NEAR(s.untraced_host_ms, 25, 0.05);
  EXPECT_EQ(s.step_numbers[0], 3);
}

TEST(StepBreakdown, NoMarkersMeansOneWindow) {
  Builder b(/*gpu=*/false);
  b.Host(10 * kMs, 20 * kMs, EventKind::kFrameworkOp);
  b.Host(40 * kMs, 10 * kMs, EventKind::kFrameworkOp);
  b.t.Finalize();
  StepWindows w = TraceToSteps(b.t, b.w);
  EXPECT_TRUE(w.whole_window);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].start_ns, 10 * kMs);
  EXPECT_EQ(w.steps[0].end_ns, 50 * kMs);
}

TEST(StepBreakdown, ZeroLengthMarkersAreExcludedAsPartial) {
  Builder b(/*gpu=*/false);
  b.Host(0, 10 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(10 * kMs, 10 * kMs, EventKind::kStepMarker, "ProfilerStep#2");
  b.Host(20 * kMs, 0, EventKind::kStepMarker, "ProfilerStep#3");
  b.t.Finalize();
  StepWindows w = TraceToSteps(b.t, b.w);
  EXPECT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.excluded_partial, 1);
  EXPECT_EQ(w.steps[1].number, 2);
}

// A marker repeated on a sub-range of a step is left out, and counted.
TEST(StepBreakdown, OverlappingMarkersAreCounted) {
  Builder b(/*gpu=*/false);
  b.Host(0, 10 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(2 * kMs, 3 * kMs, EventKind::kStepMarker, "ProfilerStep#1");
  b.Host(10 * kMs, 10 * kMs, EventKind::kStepMarker, "ProfilerStep#2");
  b.t.Finalize();
  StepWindows w = TraceToSteps(b.t, b.w);
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].end_ns, 10 * kMs);
  EXPECT_EQ(w.excluded_partial, 1);
}

}  // namespace
}  // namespace stepdoctor

namespace stepdoctor {
namespace {

// The TF profiler's finer split: 16-bit vs 32-bit device compute, copies by direction.
TEST(StepBreakdown, PrecisionAndCopyDirectionSplits) {
  Trace t;
  WorkerId w = t.AddWorker({});
  TimelineId host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
  TimelineId s = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s7");
  const int64_t ms = 1'000'000;
  t.timeline(host).Add(0, 100 * ms, t.strings.Intern("ProfilerStep#1"), EventKind::kStepMarker);
  t.timeline(s).Add(0, 30 * ms, t.strings.Intern("volta_h884gemm_fp16_128x128"), EventKind::kKernel);
  t.timeline(s).Add(30 * ms, 20 * ms, t.strings.Intern("volta_sgemm_128x64_nn"), EventKind::kKernel);
  t.timeline(s).Add(50 * ms, 5 * ms, t.strings.Intern("Memcpy HtoD"), EventKind::kMemcpyH2D);
  t.timeline(s).Add(55 * ms, 3 * ms, t.strings.Intern("Memcpy DtoH"), EventKind::kMemcpyD2H);
  t.timeline(s).Add(58 * ms, 2 * ms, t.strings.Intern("Memset"), EventKind::kMemset);
  t.Finalize();
  StepSignals sig = TraceToStepSignals(t, w, TraceToSteps(t, w));
  EXPECT_DOUBLE_EQ(sig.device_compute_16bit_ms, 30);
  EXPECT_DOUBLE_EQ(sig.device_compute_32bit_ms, 20);
  EXPECT_DOUBLE_EQ(sig.memcpy_h2d_ms, 5);
  EXPECT_DOUBLE_EQ(sig.memcpy_d2h_ms, 3);
  EXPECT_DOUBLE_EQ(sig.memcpy_d2d_ms, 0);
  EXPECT_DOUBLE_EQ(sig.memcpy_other_ms, 2);
  EXPECT_DOUBLE_EQ(sig.fp16_kernel_pct, 60);
}

}  // namespace
}  // namespace stepdoctor
