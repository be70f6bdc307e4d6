// A PyTorch window with no backward pass and no optimizer step runs the model forward only: the
// advice is inference code (model.eval(), torch.inference_mode()), not a training step with a
// loss; dropout drawing masks there means the model was left in training mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  // Dropout drew no mask: eval mode is on already, so it is not advised.
  EXPECT_EQ(f->fix.pytorch.find("model.eval()"), std::string::npos) << f->fix.pytorch;
}

// A host-bound GPU window of forward passes: the launch advice captures the forward pass, not a
// training step with a loss.
TEST(ForwardOnly, HostBoundLaunchAdviceIsForTheForwardPass) {
  auto loop = [](bool backward) {
    // Each step: 40 small operators, each launching a 10 us kernel from inside.
    std::string ev;
    int corr = 1;
    for (int i = 0; i < 4; ++i) {
      const double t = i * 10000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
      for (int k = 0; k < 40; ++k, ++corr) {
        const double o = t + k * 240.0;
        ev += X("cpu_op", "aten::add", 1, 1, o, 200);
        ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, o + 150, 30, testing::Corr(corr));
        ev += X("kernel", "add_kernel", 0, 7, o + 185, 10, "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7}");
      }
      if (backward) ev += X("cpu_op", "autograd::engine::evaluate_function: AddBackward0", 1, 1, t + 9700, 50);
    }
    return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\",\"computeMajor\":7}]");
  };
  Report fwd = AnalyzeTrace(testing::ImportChrome(loop(false)));
  const Finding* f = Find(fwd, "host_bound");
  ASSERT_NE(f, nullptr) << fwd.verdict.summary;
  EXPECT_EQ(f->fix.pytorch.find("static_loss"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.pytorch.find("static_out = model(static_x)"), std::string::npos) << f->fix.pytorch;
  Report train = AnalyzeTrace(testing::ImportChrome(loop(true)));
  const Finding* g = Find(train, "host_bound");
  ASSERT_NE(g, nullptr) << train.verdict.summary;
  EXPECT_NE(g->fix.pytorch.find("static_loss"), std::string::npos) << g->fix.pytorch;
}

// A GPU forward pass whose batch norm runs cuDNN's training kernels (bn_fw_tr_) left the model in
// training mode: said, with model.eval(); the inference kernels (bn_fw_inf_) are eval mode; with
// a backward pass the training kernels are training.
TEST(ForwardOnly, TrainingModeBatchNormKernelsAreSaidBothSides) {
  auto pass = [](const char* bn_kernel, bool backward) {
    std::string ev;
    int corr = 1;
    for (int i = 0; i < 3; ++i) {
      const double t = i * 10000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
      ev += X("cpu_op", "aten::cudnn_batch_norm", 1, 1, t + 10, 100);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 20, 10, testing::Corr(corr));
      ev += X("kernel", bn_kernel, 0, 7, t + 40, 9900, "{\"correlation\":" + std::to_string(corr++) + ",\"stream\":7}");
      if (backward) ev += X("cpu_op", "autograd::engine::evaluate_function: CudnnBatchNormBackward0", 1, 1, t + 200, 50);
    }
    return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\",\"computeMajor\":7}]");
  };
  auto evidence = [](const Finding& f) {
    std::string all;
    for (const auto& e : f.evidence) all += e.label + ": " + e.value + "\n";
    return all;
  };
  const char* train_bn = "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>";
  const char* infer_bn = "void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, true, 1>";
  Report left = AnalyzeTrace(testing::ImportChrome(pass(train_bn, false)));
  const Finding* f = Find(left, "compute_bound");
  ASSERT_NE(f, nullptr) << left.verdict.summary;
  EXPECT_NE(evidence(*f).find("batch norm in training mode"), std::string::npos) << evidence(*f);
  EXPECT_NE(f->fix.summary.find("call model.eval()"), std::string::npos) << f->fix.summary;
  Report eval = AnalyzeTrace(testing::ImportChrome(pass(infer_bn, false)));
  ASSERT_NE(f = Find(eval, "compute_bound"), nullptr);
  EXPECT_EQ(evidence(*f).find("batch norm in training mode"), std::string::npos) << evidence(*f);
  EXPECT_EQ(f->fix.summary.find("call model.eval()"), std::string::npos) << f->fix.summary;
  Report train = AnalyzeTrace(testing::ImportChrome(pass(train_bn, true)));
  ASSERT_NE(f = Find(train, "compute_bound"), nullptr);
  EXPECT_EQ(evidence(*f).find("batch norm in training mode"), std::string::npos) << evidence(*f);
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

// A TF1 session timeline names each op by its type: gradients and optimizer updates show a
// training step; a run of only forward ops is an evaluation or inference.
std::string Tf1Session(const std::vector<std::string>& ops) {
  std::string j = R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}})";
  double t = 0;
  j += R"(,{"ph":"X","name":"NoOp","pid":1,"tid":0,"ts":0,"dur":5,"args":{"name":"_SOURCE","op":"NoOp"}})";
  for (const auto& op : ops) {
    t += 10;
    j += ",{\"ph\":\"X\",\"name\":\"" + op + "\",\"pid\":1,\"tid\":0,\"ts\":" + std::to_string(t) +
         ",\"dur\":3000,\"args\":{\"name\":\"n" + std::to_string(int(t)) + "\",\"op\":\"" + op + "\"}}";
    t += 3000;
  }
  return j + "]}";
}

TEST(ForwardOnly, Tf1SessionsAreJudgedByTheirOpTypes) {
  for (const char* training : {"Conv2DBackpropFilter", "ReluGrad", "ApplyAdam", "ResourceApplyGradientDescent"}) {
    Trace t = testing::ImportChrome(Tf1Session({"Conv2D", "Relu", training}));
    EXPECT_FALSE(TraceToAppliedOptimizations(t, PrimaryWorker(t)).forward_only) << training;
  }
  Trace fwd = testing::ImportChrome(Tf1Session({"Conv2D", "Relu", "Mean", "Sub"}));
  EXPECT_TRUE(TraceToAppliedOptimizations(fwd, PrimaryWorker(fwd)).forward_only);
  Report r = AnalyzeTrace(fwd);
  const Finding* f = Find(r, "compute_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fix.tensorflow.find("train_step"), std::string::npos) << f->fix.tensorflow;
}

}  // namespace
}  // namespace stepdoctor
