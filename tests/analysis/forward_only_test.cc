// A PyTorch window with no backward pass and no optimizer step runs the model forward only: the
// advice is inference code (model.eval(), torch.inference_mode()), not a training step with a
// loss; dropout drawing masks there means the model was left in training mode.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// A CPU-only window of `passes` forward passes (conv 8 ms, dropout 1 ms); `dropout_mask` adds the
// aten::bernoulli_ that dropout calls in training mode; `backward` adds an autograd node.
std::string CpuForward(int passes, bool dropout_mask, bool backward) {
  std::string ev;
  double t = 0;
  for (int i = 0; i < passes; ++i) {
    ev += X("cpu_op", "aten::conv2d", 1, 1, t, 8000);
    ev += X("cpu_op", "aten::dropout", 1, 1, t + 8000, 1000);
    if (dropout_mask) ev += X("cpu_op", "aten::bernoulli_", 1, 1, t + 8100, 700);
    t += 9000;
    if (backward) {
      ev += X("cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", 1, 2, t, 8000);
      t += 8000;
    }
  }
  return Doc(ev);
}

const Finding* Find(const Report& r, const std::string& id) { return testing::FindFinding(r, id); }

TEST(ForwardOnly, InferenceInTrainingModeIsSaid) {
  Trace t = testing::ImportChrome(CpuForward(4, true, false));
  const AppliedOptimizations a = TraceToAppliedOptimizations(t, PrimaryWorker(t));
  EXPECT_TRUE(a.forward_only);
  EXPECT_EQ(a.dropout_ops, 4);
  Report r = AnalyzeTrace(t);
  const Finding* f = Find(r, "compute_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.summary.find("model.eval()"), std::string::npos) << f->fix.summary;
  EXPECT_NE(f->fix.pytorch.find("torch.inference_mode()"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.pytorch.find("loss_fn"), std::string::npos) << f->fix.pytorch;
  bool said = false;
  for (const auto& e : f->evidence) said |= e.label.find("training mode") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ForwardOnly, EvalModeInferenceGetsInferenceCodeWithoutTheTrainingModeNote) {
  Report r = AnalyzeTrace(testing::ImportChrome(CpuForward(4, false, false)));
  const Finding* f = Find(r, "compute_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.pytorch.find("torch.inference_mode()"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.summary.find("training mode"), std::string::npos) << f->fix.summary;
}

TEST(ForwardOnly, ABackwardPassIsTraining) {
  Trace t = testing::ImportChrome(CpuForward(4, true, true));
  const AppliedOptimizations a = TraceToAppliedOptimizations(t, PrimaryWorker(t));
  EXPECT_FALSE(a.forward_only);
  EXPECT_EQ(a.dropout_ops, 0);  // dropout belongs in training
  Report r = AnalyzeTrace(t);
  const Finding* f = Find(r, "compute_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fix.pytorch.find("inference_mode"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.summary.find("model.eval()"), std::string::npos) << f->fix.summary;
}

// Without PyTorch operators (a TensorFlow timeline names op types, not autograd nodes) nothing
// tells a forward pass from a training step: no claim either way.
TEST(ForwardOnly, OnlyPyTorchOperatorsAreJudged) {
  std::string tf = R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}},)"
                   R"({"ph":"X","name":"Conv2D","pid":1,"tid":0,"ts":0,"dur":8000,"args":{"name":"conv","op":"Conv2D"}}]})";
  Trace t = testing::ImportChrome(tf);
  EXPECT_FALSE(TraceToAppliedOptimizations(t, PrimaryWorker(t)).forward_only);
}

}  // namespace
}  // namespace stepdoctor
