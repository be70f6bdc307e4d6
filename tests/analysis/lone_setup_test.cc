// One-off start-up inside operators called once (analysis/first_calls.cc, LoneSetupOperators): in
// a window that shows start-up already, in a job that used an accelerator, an operator called once
// whose own time dwarfs the window's typical call set up the device's context or a library (CUDA
// context in the first aten::zeros, cuBLAS in the only aten::addmm). Not a container whose time
// is its children's, and not where nothing else in the window shows start-up.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// One ResNet-like inference pass recorded with CPU activity only (PyTorch 1.10 on Windows): a
// record_function range around it, the first factory call creating the CUDA context, twenty
// cuDNN convolutions (the first one `first_conv_us`), and the classifier's only aten::addmm.
std::string ColdPass(double first_conv_us) {
  std::string ev;
  ev += X("cpu_op", "model_inference", 1, 1, 0, 7'000'000);
  ev += X("cpu_op", "aten::zeros", 1, 1, 100, 4'000'000);
  ev += X("cpu_op", "aten::empty", 1, 1, 110, 50);
  double t = 4'001'000;
  for (int i = 0; i < 20; ++i) {
    const double d = i == 0 ? first_conv_us : 4'000;
    ev += X("cpu_op", "aten::conv2d", 1, 1, t, d);
    ev += X("cpu_op", "aten::cudnn_convolution", 1, 1, t + 5, d - 10);
    ev += X("cpu_op", "aten::relu", 1, 1, t + d + 10, 300);
    t += d + 400;
  }
  ev += X("cpu_op", "aten::addmm", 1, 1, t, 2'000'000);
  return Doc(ev);
}

TEST(LoneSetup, SingleCallsInAColdDeviceWindowAreStartup) {
  Trace trace = testing::ImportChrome(ColdPass(2'500'000));
  const WorkerId w = PrimaryWorker(trace);
  std::vector<FirstCall> firsts = SlowFirstCalls(trace, w, 0, 8'000'000'000);
  auto found = [&](const char* name) {
    for (const FirstCall& f : firsts)
      if (trace.str(f.name) == name) return true;
    return false;
  };
  EXPECT_TRUE(found("aten::conv2d"));  // the first-call evidence: slower than its later calls
  EXPECT_TRUE(found("aten::zeros"));
  EXPECT_TRUE(found("aten::addmm"));
  EXPECT_FALSE(found("model_inference"));  // its time is its children's
  Report r = AnalyzeTrace(trace);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().id, "cold_start");
  EXPECT_GT(r.findings.front().share_pct, 90);
  for (const auto& f : r.findings) EXPECT_NE(f.id, "host_bound");
}

// Nothing else in the window shows start-up (every convolution as fast as the next): a long
// single call is not taken for set-up on its length alone.
TEST(LoneSetup, NoStartupElsewhereKeepsSingleCalls) {
  Trace trace = testing::ImportChrome(ColdPass(4'000));
  std::vector<FirstCall> firsts = SlowFirstCalls(trace, PrimaryWorker(trace), 0, 8'000'000'000);
  for (const FirstCall& f : firsts) EXPECT_NE(trace.str(f.name), "aten::zeros");
}

}  // namespace
}  // namespace stepdoctor
