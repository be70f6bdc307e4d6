// Each finding's code is in the framework that wrote the input; both where the input does not say.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/framework_code.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

std::vector<Finding> BothCodes() {
  Finding f;
  f.id = "input_bound";
  f.fix.tensorflow = "ds = ds.prefetch(tf.data.AUTOTUNE)";
  f.fix.pytorch = "DataLoader(ds, num_workers=4)";
  Finding tf_only;
  tf_only.id = "tfdata_bottleneck_stage";
  tf_only.fix.tensorflow = "ds.map(f, num_parallel_calls=tf.data.AUTOTUNE)";
  return {f, tf_only};
}

TEST(FrameworkCode, ThePyTorchInputsCodeIsPyTorchs) {
  auto f = BothCodes();
  KeepTheFrameworksCode(Framework::kPyTorch, &f);
  EXPECT_EQ(f[0].fix.tensorflow, "");
  EXPECT_EQ(f[0].fix.pytorch, "DataLoader(ds, num_workers=4)");
  EXPECT_FALSE(f[1].fix.tensorflow.empty());  // no PyTorch code to show instead: kept
}

TEST(FrameworkCode, TheTensorFlowInputsCodeIsTensorFlows) {
  auto f = BothCodes();
  KeepTheFrameworksCode(Framework::kTensorFlow, &f);
  EXPECT_EQ(f[0].fix.pytorch, "");
  EXPECT_FALSE(f[0].fix.tensorflow.empty());
}

TEST(FrameworkCode, BothWhereTheInputDoesNotSay) {
  for (Framework fw : {Framework::kUnknown, Framework::kHorovod, Framework::kJax}) {
    auto f = BothCodes();
    KeepTheFrameworksCode(fw, &f);
    EXPECT_FALSE(f[0].fix.tensorflow.empty()) << FrameworkName(fw);
    EXPECT_FALSE(f[0].fix.pytorch.empty()) << FrameworkName(fw);
  }
}

TEST(FrameworkCode, DiagnoseOfAPyTorchTraceShowsNoTensorFlowCode) {
  Trace t = testing::ImportChrome(testing::DataLoaderLoop(6, 40, 60));
  ASSERT_EQ(t.framework, Framework::kPyTorch);
  Report r = AnalyzeTrace(t);
  ASSERT_FALSE(r.findings.empty());
  bool any_pytorch = false;
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.fix.tensorflow, "") << f.id;
    any_pytorch |= !f.fix.pytorch.empty();
  }
  EXPECT_TRUE(any_pytorch);
}

}  // namespace
}  // namespace stepdoctor
