// Warm-up steps: a first step much slower than the others (over kWarmupStepFactor x their
// median), or slower than kOutlierStepFactor x it through one-off start-up calls, is kept out of
// the figures; one like the later stalls is a stall, not warm-up. Inferred iterations too.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "step_builder.h"

namespace stepdoctor {
namespace {

using Builder = testing::StepBuilder;
constexpr int64_t kMs = 1'000'000;

double Cat(const StepSignals& s, StepCategory c) { return s.category_ms[int(c)]; }

// No ProfilerStep markers: iterations from the DataLoader fetch; the slow first is warm-up.
TEST(Coverage, StepsInferredFromTheDataLoaderFetchWithWarmupOut) {
  Builder b;
  int64_t t = 0;
  for (int i = 0; i < 5; ++i) {
    int64_t len = i == 0 ? 500 * kMs : 100 * kMs;
    b.Host(t, 30 * kMs, EventKind::kInputWait, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    b.Host(t + len - 10 * kMs, 10 * kMs, EventKind::kOther, "Optimizer.step#SGD.step");
    b.Dev(t + 30 * kMs, len - 40 * kMs);
    t += len;
  }
  StepWindows w;
  StepSignals s = b.Run(&w);
  EXPECT_TRUE(w.inferred);
  EXPECT_FALSE(w.whole_window);
  ASSERT_EQ(w.warmup.size(), 1u);
  EXPECT_EQ(w.warmup[0].dur_ns(), 500 * kMs);
  EXPECT_EQ(s.step_count, 4);
  EXPECT_DOUBLE_EQ(s.median_step_ms, 100.0);
  EXPECT_DOUBLE_EQ(Cat(s, StepCategory::kInput), 30.0);
}

// Warm-up is judged on both sides of its factor: 2.1x the median is warm-up, 1.9x is not.
TEST(Coverage, WarmupFactorBothSides) {
  for (double factor : {2.1, 1.9}) {
    Builder b;
    int64_t t = 0;
    for (int i = 0; i < 4; ++i) {
      int64_t len = i == 0 ? int64_t(factor * 100 * kMs) : 100 * kMs;
      b.Host(t, len, EventKind::kStepMarker, ("ProfilerStep#" + std::to_string(i)).c_str());
      b.Dev(t, len);
      t += len;
    }
    StepWindows w;
    b.Run(&w);
    EXPECT_EQ(w.warmup.size(), factor > kWarmupStepFactor ? 1u : 0u) << factor;
  }
}

// A first step under kWarmupStepFactor x the median whose excess is mostly one-off runtime
// calls (context creation: a call over kOneOffRuntimeNs no later step makes) is warm-up; the
// same step slowed by framework work, or by a long call every step makes too, is not.
TEST(Coverage, FirstStepSlowedByStartupCallsIsWarmupBothSides) {
  enum Extra { kStartupCall, kOperatorWork, kRecurringCall };
  for (Extra extra : {kStartupCall, kOperatorWork, kRecurringCall}) {
    Builder b;
    int64_t t = 0;
    for (int i = 0; i < 5; ++i) {
      const int64_t len = i == 0 ? 170 * kMs : 100 * kMs;  // 1.7x: past kOutlierStepFactor, under 2x
      b.Host(t, len, EventKind::kStepMarker, ("ProfilerStep#" + std::to_string(i)).c_str());
      if (i == 0 && extra == kStartupCall) b.Host(t + kMs, 60 * kMs, EventKind::kRuntime, "cudaDeviceGetStreamPriorityRange");
      if (i == 0 && extra == kOperatorWork) b.Host(t + kMs, 60 * kMs, EventKind::kFrameworkOp, "aten::randn");
      if (extra == kRecurringCall) b.Host(t + kMs, i == 0 ? 60 * kMs : 55 * kMs, EventKind::kRuntime, "cudaStreamSynchronize");
      b.Dev(t + 62 * kMs, len - 70 * kMs);
      t += len;
    }
    StepWindows w;
    b.Run(&w);
    EXPECT_EQ(w.warmup.size(), extra == kStartupCall ? 1u : 0u) << int(extra);
  }
}

// A slow first step in a run whose later steps stall too (a checkpoint every 4th step) is one of
// the stalls, unless it is over kWarmupOverStallFactor x the slowest later one.
TEST(Coverage, FirstStepLikeTheLaterStallsIsNotWarmup) {
  for (double first : {kWarmupOverStallFactor * 175 - 1, kWarmupOverStallFactor * 175 + 1}) {
    Builder b;
    int64_t t = 0;
    for (int i = 0; i < 12; ++i) {
      double ms = i == 0 ? first : i % 4 == 0 ? 175 : 77;
      int64_t len = int64_t(ms * kMs);
      b.Host(t, len, EventKind::kStepMarker, ("ProfilerStep#" + std::to_string(i)).c_str());
      b.Dev(t, len);
      t += len;
    }
    StepWindows w;
    b.Run(&w);
    EXPECT_EQ(w.warmup.size(), first > kWarmupOverStallFactor * 175 ? 1u : 0u) << first;
  }
}

}  // namespace
}  // namespace stepdoctor
