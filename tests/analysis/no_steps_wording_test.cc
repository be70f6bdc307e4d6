// A window without steps is one region, not a step: no title calls it "each N ms step". And a
// trace that lacks device activity leads with that finding, the others judged on the host side
// only (at most moderate), with low confidence. Small inputs built in the test.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "test_util.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/verdict.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

Report AnalyzeJson(const std::string& json) { return AnalyzeTrace(testing::ImportChrome(json)); }

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

const char* kDevice =
    ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-PCIE-40GB\",\"totalGlobalMem\":42346610688,"
    "\"computeMajor\":8,\"computeMinor\":0}]";

// Runtime calls only (no kernels, no step markers): ten 100 us calls, each followed by a gap of
// `gap_us` with nothing recorded; with `launch`, some of them launches (whose kernels were not
// recorded), else set-up alone.
std::string SetupCallsOnly(double gap_us, bool launch = true) {
  std::string ev;
  double t = 0;
  for (int i = 0; i < 10; ++i, t += 100 + gap_us)
    ev += X("cuda_runtime", i % 2 ? (launch ? "cudaLaunchKernel" : "cudaMalloc") : "cudaGetDeviceProperties", 1, 1, t, 100);
  ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t, 100);
  return Doc(ev, kDevice);
}

bool SaysEachStep(const std::string& s) { return s.find("each ") != std::string::npos && s.find(" step") != std::string::npos; }

TEST(NoStepsWording, RuntimeCallsOnlyLeadWithMissingDeviceActivityAndSpeakOfTheWindow) {
  Report r = AnalyzeJson(SetupCallsOnly(/*gap_us=*/1500));  // 15 ms untraced of 16 ms: 94%
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.coverage.confidence, "low");
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].id, "device_activity_missing");
  const Finding* untraced = Find(r, "untraced_time");
  ASSERT_NE(untraced, nullptr);
  EXPECT_GE(untraced->share_pct, kUntracedHighPct);
  // High on a trace with device activity; here a host-side view only.
  EXPECT_EQ(untraced->severity, FindingSeverity::kModerate);
  EXPECT_NE(untraced->title.find("window"), std::string::npos) << untraced->title;
  EXPECT_FALSE(SaysEachStep(r.verdict.summary)) << r.verdict.summary;
  for (const auto& f : r.findings) {
    EXPECT_FALSE(SaysEachStep(f.title)) << f.title;
    for (const auto& e : f.evidence) EXPECT_EQ(e.label.find("steps measured"), std::string::npos) << e.label;
  }
  // Set-up calls alone launched nothing: the window holds no step, and its gaps are no step's
  // untraced time (device_activity_missing says to profile steps).
  Report setup = AnalyzeJson(SetupCallsOnly(1500, /*launch=*/false));
  ASSERT_FALSE(setup.findings.empty());
  EXPECT_EQ(setup.findings[0].id, "device_activity_missing");
  EXPECT_EQ(Find(setup, "untraced_time"), nullptr);
}

TEST(NoStepsWording, UntracedTimeThresholdsHoldWithoutSteps) {
  // Under kUntracedModeratePct: no finding; over it: moderate, titled by the window.
  std::string ev_low, ev_high;
  // 10 launch calls (their kernels not recorded) of 6 ms each with 1.5 ms gaps: 15 ms untraced of 76 ms (under 25%).
  // 10 calls of 3 ms each with 1.5 ms gaps: 15 ms of 46 ms (over 25%).
  for (int i = 0; i < 10; ++i) {
    ev_low += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 7500.0, 6000);
    ev_high += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 4500.0, 3000);
  }
  ev_low += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 75000, 1000);
  ev_high += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 45000, 1000);
  Report low = AnalyzeJson(Doc(ev_low, kDevice));
  Report high = AnalyzeJson(Doc(ev_high, kDevice));
  EXPECT_EQ(Find(low, "untraced_time"), nullptr);
  const Finding* f = Find(high, "untraced_time");
  ASSERT_NE(f, nullptr);
  EXPECT_GE(f->share_pct, kUntracedModeratePct);
  EXPECT_LT(f->share_pct, kUntracedHighPct);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_EQ(high.findings[0].id, "device_activity_missing");
  EXPECT_NE(f->title.find("of the 46.0 ms window"), std::string::npos) << f->title;
}

// The profiler's own span (Kineto's "Trace" event on its own line) much longer than the events:
// the finding says how long the profiler recorded and how little of it holds anything.
TEST(NoStepsWording, SaysWhenTheProfilerRecordedFarLongerThanItsEvents) {
  auto with_span = [](double span_us) {
    std::string ev;
    for (int i = 0; i < 10; ++i) ev += X("cuda_runtime", "cudaMalloc", 1, 1, span_us - 20000 + i * 2000.0, 100);
    ev += ",{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":"
          "\"PyTorch Profiler\",\"ts\":0,\"dur\":" + std::to_string(span_us) + "}";
    return Doc(ev, kDevice);
  };
  auto says = [](const Report& r) {
    const Finding* f = Find(r, "device_activity_missing");
    EXPECT_NE(f, nullptr);
    if (!f) return false;
    for (const auto& e : f->evidence)
      if (e.value.find("the profiler recorded for") != std::string::npos) return true;
    return false;
  };
  // Events span 18.1 ms: a 5 s window is mostly empty; a 30 ms one (under 2x) is not remarked on.
  EXPECT_TRUE(says(AnalyzeJson(with_span(5'000'000))));
  EXPECT_FALSE(says(AnalyzeJson(with_span(30'000))));
}

// The verdict with no finding, and a TensorFlow rule's title, say "window" without steps.
TEST(NoStepsWording, VerdictAndTfTitlesSpeakOfTheWindow) {
  StepSignals s;
  s.step_count = 1;
  s.mean_step_ms = s.median_step_ms = 20;
  TfSignals tf;
  tf.step_ms = 20;
  tf.launch_share_pct = kLaunchBoundMinPct + 1;
  s.kernels_per_step = 10;
  Signals sig;
  sig.tf = &tf;
  sig.steps = &s;
  for (bool has_steps : {false, true}) {
    s.has_steps = has_steps;
    const std::string v = MakeVerdict({}, &s).summary;
    auto f = rules::KernelLaunchBound(sig);
    ASSERT_TRUE(f);
    EXPECT_EQ(v.find("window") != std::string::npos, !has_steps) << v;
    EXPECT_EQ(f->title.find("of the window") != std::string::npos, !has_steps) << f->title;
    EXPECT_EQ(f->title.find("of the one step recorded") != std::string::npos, has_steps) << f->title;
  }
  // Several steps: "each step".
  s.has_steps = true;
  s.step_count = 3;
  auto f = rules::KernelLaunchBound(sig);
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("of each step"), std::string::npos) << f->title;
  EXPECT_EQ(rules::EachStep(s), "each 20.0 ms step");
  s.step_count = 1;
  EXPECT_EQ(rules::EachStep(s), "the one 20.0 ms step recorded");
}

TEST(NoStepsWording, StepsKeepTheirWording) {
  // The same untraced gaps inside ProfilerStep markers, with kernels: "each N ms step", and high.
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 50, testing::Corr(i + 1));
    ev += X("kernel", "gemm_kernel", 1, 7, t + 200, 500, "{\"correlation\":" + std::to_string(i + 1) + ",\"device\":0,\"stream\":7}");
  }
  Report r = AnalyzeJson(Doc(ev, kDevice));
  const Finding* f = Find(r, "untraced_time");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_NE(f->title.find("of each 10.0 ms step"), std::string::npos) << f->title;
}

}  // namespace
}  // namespace stepdoctor
