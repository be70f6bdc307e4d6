// copy_bound: a device busy mostly with host-device copies, computing little beside them, gets a
// finding that names the copies by direction, says when one direction is several times slower
// per copy (pageable memory, larger results), and advises fewer, larger, pinned copies; a device
// whose compute outweighs its copies does not, nor does one that compute_bound speaks for.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::StreamKernel;
using testing::X;

// `steps` ProfilerStep windows of 100 ms: copy in (h2d_ms), a kernel (kernel_ms), copy out (d2h_ms).
std::string CopyLoop(int steps, double h2d_ms, double kernel_ms, double d2h_ms) {
  std::string ev;
  int corr = 1;
  for (int k = 0; k < steps; ++k) {
    const double t = 1000 + k * 100'000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(k)).c_str(), 1, 1, t, 100'000);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 10, 20, Corr(corr));
    ev += StreamKernel("Memcpy HtoD (Pageable -> Device)", t + 50, h2d_ms * 1000, corr++, "gpu_memcpy");
    double at = t + 60 + h2d_ms * 1000;
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 10, Corr(corr));
    ev += StreamKernel("void at::native::vectorized_elementwise_kernel<4, MulFunctor<float>>", at + 20, kernel_ms * 1000, corr++);
    at += 40 + kernel_ms * 1000;
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, at, 20, Corr(corr));
    ev += StreamKernel("Memcpy DtoH (Device -> Pageable)", at + 30, d2h_ms * 1000, corr++, "gpu_memcpy");
  }
  return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"computeMajor\":8}]");
}

bool Has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

TEST(CopyBound, ADeviceBusyCopyingIsNamedBothSides) {
  Report r = AnalyzeTrace(testing::ImportChrome(CopyLoop(5, 8, 0.3, 60)));
  const Finding* f = testing::FindFinding(r, "copy_bound");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NEAR(f->share_pct, 68.0, 1.0);  // 68 of each 100 ms step
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_TRUE(Has(f->title, "copies between host and device hold 68")) << f->title;
  bool ratio = false, each = false;
  for (const EvidenceItem& e : f->evidence) {
    ratio |= Has(e.label, "each copy to the host vs each copy to the device") && Has(e.value, "7.5x");
    each |= e.label == "to the host" && Has(e.value, "5 copies, 60.00 ms each");
  }
  EXPECT_TRUE(ratio);
  EXPECT_TRUE(each);
  EXPECT_TRUE(Has(f->fix.pytorch, "pin_memory")) << f->fix.pytorch;
  EXPECT_TRUE(Has(f->fix.pytorch, "non_blocking=True"));
  EXPECT_NEAR(f->gain_upper_bound, 1 / 0.32, 0.05);

  // Compute outweighs the copies: no copy_bound.
  Report busy = AnalyzeTrace(testing::ImportChrome(CopyLoop(5, 8, 50, 20)));
  EXPECT_EQ(testing::FindFinding(busy, "copy_bound"), nullptr) << busy.verdict.summary;
  // Few copies: none either.
  Report few = AnalyzeTrace(testing::ImportChrome(CopyLoop(5, 2, 0.3, 6)));
  EXPECT_EQ(testing::FindFinding(few, "copy_bound"), nullptr) << few.verdict.summary;
}

TEST(CopyBound, PinnedMemoryInUseIsNotAdvisedAndEvenCopiesSayNoRatio) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = 2;
  s.mean_step_ms = s.median_step_ms = 100;
  s.step_ms = {100, 100};
  s.category_ms[int(StepCategory::kMemcpy)] = 40;
  s.category_ms[int(StepCategory::kDeviceCompute)] = 5;
  s.memcpy_h2d_ms = s.memcpy_d2h_ms = 20;
  s.memcpy_h2d_own_ms = s.memcpy_d2h_own_ms = 20;
  s.memcpy_h2d_copies = s.memcpy_d2h_copies = 4;
  s.device_span_busy_pct = 45;
  AppliedOptimizations applied;
  applied.pinned_memory = true;
  Signals sig;
  sig.steps = &s;
  sig.applied = &applied;
  auto f = rules::CopyBound(sig);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_TRUE(Has(f->fix.pytorch, "pinned memory is in use already")) << f->fix.pytorch;
  EXPECT_FALSE(Has(f->fix.pytorch, "x.pin_memory()")) << f->fix.pytorch;
  for (const EvidenceItem& e : f->evidence) EXPECT_FALSE(Has(e.value, "x as long")) << e.value;
  // A CPU-only trace has no host-device copies to judge.
  s.cpu_only = true;
  EXPECT_FALSE(rules::CopyBound(sig));
}

// Copies both ways at once on two streams (pinned, 154 MB each way): the copy out, hidden under
// the copy in, gets none of the breakdown's time, yet each direction is told by its copies' own
// time (30 and 17.7 ms each, 1.7x: no "x as long" claim), the overlap is said, and results that
// land in pinned memory get no pinned destination advised. Copies one after the other: no overlap.
std::string TwoStreamCopies(bool overlap) {
  std::string ev;
  int corr = 1;
  for (int k = 0; k < 4; ++k) {
    const double t = 1000 + k * 100'000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(k)).c_str(), 1, 1, t, 100'000);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 10, 20, Corr(corr));
    ev += X("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 8, t + 40, 17'700,
            "{\"correlation\":" + std::to_string(corr++) + ",\"stream\":8,\"device\":0}");
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 40, 20, Corr(corr));
    ev += X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, overlap ? t + 100 : t + 17'800, 30'000,
            "{\"correlation\":" + std::to_string(corr++) + ",\"stream\":7,\"device\":0}");
  }
  return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-40GB\",\"computeMajor\":8}]");
}

TEST(CopyBound, EachDirectionByItsOwnTimeWhereTheyOverlap) {
  Report r = AnalyzeTrace(testing::ImportChrome(TwoStreamCopies(true)));
  const Finding* f = testing::FindFinding(r, "copy_bound");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  const std::string ev = testing::EvidenceText(*f);
  EXPECT_TRUE(Has(ev, "4 copies, 17.70 ms each")) << ev;
  EXPECT_TRUE(Has(ev, "4 copies, 30.00 ms each")) << ev;
  EXPECT_TRUE(Has(ev, "the two directions already overlap")) << ev;
  EXPECT_FALSE(Has(ev, "x as long")) << ev;
  EXPECT_TRUE(Has(f->fix.pytorch, "results land in pinned memory already")) << f->fix.pytorch;
  EXPECT_FALSE(Has(f->fix.pytorch, "torch.empty(")) << f->fix.pytorch;

  Report apart = AnalyzeTrace(testing::ImportChrome(TwoStreamCopies(false)));
  const Finding* g = testing::FindFinding(apart, "copy_bound");
  ASSERT_NE(g, nullptr) << apart.verdict.summary;
  EXPECT_FALSE(Has(testing::EvidenceText(*g), "already overlap")) << testing::EvidenceText(*g);
}

// The gain bound stops at a 99% share: past it, the text says the rest is tiny, not "100.00x".
TEST(CopyBound, AGainPastTheCapSaysTheRestIsTiny) {
  EXPECT_EQ(rules::GainText(GainIfRemoved(99.8), "if the copies were removed"),
            "100x or more faster steps if the copies were removed (the rest of the step is under 1% of it)");
  EXPECT_EQ(rules::GainText(GainIfRemoved(50), "if the copies were removed"),
            "up to 2.00x faster steps if the copies were removed");
}

// A step's length in a title: microseconds under a millisecond ("each 941 us step", not "0.9 ms").
TEST(CopyBound, TitleDurationsUnderAMillisecondInMicroseconds) {
  EXPECT_EQ(rules::Duration(0.941), "941 us");
  EXPECT_EQ(rules::Duration(1.0), "1.0 ms");
  EXPECT_EQ(rules::Duration(12'500), "12.5 s");
}

}  // namespace
}  // namespace stepdoctor
