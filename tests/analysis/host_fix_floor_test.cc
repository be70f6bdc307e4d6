// More classes of real traces read wrongly once, each built inline and tested on both sides of
// its condition: device work that runs past the step that launched it bounds every host-side
// fix's gain; TensorFlow's asynchronous collective ops are waits, not the executor's work; a
// blocking copy's wait is for the copy it launched (so a fix that removes the copy removes the
// wait); a TF1 op-level GPU lane without tracer lanes is the host's; a small model's complete
// step is analysed however short; input waits held by a few steps are named as stalls; a long wait with nothing
// launched before it is start-up; a CUPTI version in the header means device activity was asked for; the profiler's own reads of Dynamo's config are no torch.compile.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/step_model.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/whatif.h"
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

constexpr const char* kT4 =
    ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla T4\",\"computeMajor\":7,\"computeMinor\":5}]";



// --- device work that lags the host: the gain ceiling is the work each step launches

// Three 12 ms steps: 8 ms of CPU work, then a launch whose kernel (`kernel_ms`) starts at once and
// runs on into the next step where it is longer than what is left of this one.
std::string LaggingDeviceLoop(double kernel_ms) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    const double t = i * 12000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 12000);
    ev += X("cpu_op", "aten::randn", 1, 1, t + 100, 8000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 8200, 20, testing::Corr(i + 1));
    ev += StreamKernel("matmul_k", t + 8230, kernel_ms * 1000, i + 1);
  }
  return Doc(ev, kT4);
}

TEST(HostFixFloor, DeviceWorkLaunchedEachStepCapsTheHostGainBothSides) {
  // 7 ms kernels: each runs 3.8 ms into the next step, the last one past the window.
  Report lag = AnalyzeTrace(testing::ImportChrome(LaggingDeviceLoop(7)));
  const Finding* f = testing::FindFinding(lag, "host_bound");
  ASSERT_NE(f, nullptr) << lag.verdict.summary;
  EXPECT_NEAR(f->gain_upper_bound, 12.0 / 7.0, 0.02);  // the step over the device work it launched
  EXPECT_LT(f->gain_upper_bound, 1.0 / (1.0 - f->share_pct / 100.0));
  EXPECT_NE(f->gain_text.find("the device work each step launches, 7.0 ms, stays; part of it runs past"),
            std::string::npos)
      << f->gain_text;
  // 2 ms kernels end inside their steps: the share's own ceiling stands.
  Report fits = AnalyzeTrace(testing::ImportChrome(LaggingDeviceLoop(2)));
  const Finding* g = testing::FindFinding(fits, "host_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_NEAR(g->gain_upper_bound, 1.0 / (1.0 - g->share_pct / 100.0), 1e-6);
  EXPECT_EQ(g->gain_text.find("and no more"), std::string::npos);
}

// --- TensorFlow's collective ops wait on the device

// A TF1 GPU step: ten 100 us ops on the executor's lane, then `name` spanning 6 ms while the
// device's all-reduce runs; stream lanes hold the kernels.
std::string Tf1StepWithLongOp(const char* name) {
  std::string ev = Tf1Lane(2, "/job:localhost/replica:0/task:0/device:GPU:0 Compute") +
                   Tf1Lane(3, "/device:GPU:0/stream:all Compute") + Tf1Lane(4, "/device:GPU:0/stream:13 Compute");
  for (int k = 0; k < 10; ++k) {
    ev += Tf1Op(2, "MatMul", 100 + k * 120.0, 100);
    ev += Tf1Op(3, "MatMul", 190 + k * 120.0, 100);
    ev += Tf1Op(4, "MatMul", 190 + k * 120.0, 100);
  }
  ev += Tf1Op(2, name, 1400, 6000);
  ev += Tf1Op(3, "ncclAllReduceRingLLKernel_sum_f32", 1500, 5800);
  ev += Tf1Op(4, "ncclAllReduceRingLLKernel_sum_f32", 1500, 5800);
  return "{\"traceEvents\":[" + ev.substr(1) + "]}";
}

double HostWorkMs(const Trace& t) {
  const WorkerId w = PrimaryWorker(t);
  return TraceToStepModel(t, w, TraceToSteps(t, w), DeviceCoverage::kCaptured).work_ms_per_step;
}

TEST(HostFixFloor, TfCollectiveOpsAreWaitsNotExecutorWorkBothSides) {
  Trace nccl = testing::ImportChrome(Tf1StepWithLongOp("NcclAllReduce"));
  ASSERT_TRUE(nccl.worker(PrimaryWorker(nccl)).tf1_session);
  EXPECT_LT(HostWorkMs(nccl), 2.0);  // the ten ops' 1 ms and the gaps between them
  // An ordinary op of the same span is the executor's own work.
  Trace op = testing::ImportChrome(Tf1StepWithLongOp("Conv2DBackpropFilter"));
  EXPECT_GT(HostWorkMs(op), 6.0);
}

// --- a blocking copy waits for its own copy

// Two 60 ms steps: 50 ms of CPU work making a tensor, a 9 ms pageable copy whose call blocks (the
// device's record ends it 30 us after the call returns), then a 0.2 ms kernel.
std::string CpuTensorThenCopy() {
  std::string ev;
  int corr = 1;
  for (int i = 0; i < 2; ++i) {
    const double t = i * 60000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 60000);
    ev += X("cpu_op", "aten::randn", 1, 1, t + 100, 50000);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 50200, 9000, testing::Corr(corr));
    ev += StreamKernel("Memcpy HtoD (Pageable -> Device)", t + 50300, 8930, corr++, "gpu_memcpy");
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 59300, 10, testing::Corr(corr));
    ev += StreamKernel("square_kernel", t + 59320, 200, corr++);
  }
  return Doc(ev, kT4);
}

TEST(HostFixFloor, ABlockingCopysWaitGoesWithTheCopy) {
  Trace t = testing::ImportChrome(CpuTensorThenCopy());
  Prediction p = PredictFix(t, "cpuwork");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.predicted_step_ms, 9.9, 1.0);  // the copy and its wait stay at the point
  EXPECT_LT(p.low_ms, 2.0);                    // made on the device: no copy, no wait
  bool says = false;
  for (const auto& a : p.assumptions) says |= a.find("host-to-device copies stay at the point") != std::string::npos;
  EXPECT_TRUE(says);
}

// --- TF1 lanes and short steps

TEST(HostFixFloor, ATf1OpLevelLaneWithoutTracerLanesGetsTheSessionsTracingAdvice) {
  std::string ev = Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute") +
                   Tf1Lane(2, "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  ev += Tf1Op(1, "_SOURCE", 0, 5);
  for (int k = 0; k < 30; ++k) ev += Tf1Op(2, k % 2 ? "MatMul" : "Sum", 10 + k * 60.0, 50);
  Report r = AnalyzeTrace(testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}"));
  EXPECT_EQ(r.coverage.device_activity, "missing");
  const Finding* f = testing::FindFinding(r, "device_activity_missing");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->fix.tensorflow.find("RunOptions.FULL_TRACE"), std::string::npos) << f->fix.tensorflow;
  EXPECT_TRUE(f->fix.pytorch.empty());
  ASSERT_FALSE(r.top_ops.empty());  // the GPU ops' host time is read
}

// A CPU-only TF1 step of `ops` 20 us ops, 0.6 ms or so in all.
std::string ShortTf1CpuStep(int ops) {
  std::string ev = Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  const double each = 600.0 / ops;
  for (int k = 0; k < ops; ++k) ev += Tf1Op(1, k % 3 ? "MatMul" : "Add", k * each, each * 0.9);
  return "{\"traceEvents\":[" + ev.substr(1) + "]}";
}

TEST(HostFixFloor, ACompleteShortStepIsAnalysedWithEnoughEventsThresholdBothSides) {
  Report enough = AnalyzeTrace(testing::ImportChrome(ShortTf1CpuStep(int(kMinEventsForAShortStep))));
  EXPECT_EQ(enough.verdict.summary.find("too little to diagnose"), std::string::npos) << enough.verdict.summary;
  EXPECT_FALSE(enough.findings.empty());
  Report few = AnalyzeTrace(testing::ImportChrome(ShortTf1CpuStep(int(kMinEventsForAShortStep) - 1)));
  EXPECT_NE(few.verdict.summary.find("too little to diagnose"), std::string::npos) << few.verdict.summary;
}

// --- input waits held by a few steps are stalls, not a wait of each step

// Ten CPU steps of 20 ms compute, each after a DataLoader fetch of `fetch_ms[i]` (from worker
// processes, or with `single` in the training process).
std::string LoaderStalls(const std::vector<double>& fetch_ms, bool single = false) {
  std::string ev;
  double t = 0;
  for (size_t i = 0; i < fetch_ms.size(); ++i) {
    const double step = (fetch_ms[i] + 20) * 1000;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, step);
    ev += X("cpu_op",
            single ? "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
                   : "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
            1, 1, t, fetch_ms[i] * 1000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + fetch_ms[i] * 1000, 20000);
    t += step;
  }
  return Doc(ev);
}

TEST(HostFixFloor, InputWaitInAFewStepsIsNamedAsStallsBothSides) {
  std::vector<double> stalls(10, 0.1);
  stalls[3] = 800;
  stalls[6] = 500;
  Report r = AnalyzeTrace(testing::ImportChrome(LoaderStalls(stalls)));
  const Finding* f = testing::FindFinding(r, "input_bound");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->title.find("nearly all of it in 2 of 10 steps"), std::string::npos) << f->title;
  EXPECT_EQ(f->title.find("each"), std::string::npos) << f->title;
  // Every step waiting: each step's wait.
  Report every = AnalyzeTrace(testing::ImportChrome(LoaderStalls(std::vector<double>(10, 30))));
  const Finding* g = testing::FindFinding(every, "input_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->title.find("of each"), std::string::npos) << g->title;
}

// The first fetch of a DataLoader with workers starts them: a slow first step made of it is warm-up
// even where a later step stalls as long; the first fetch of a loader without workers is no
// start-up, and such a first step is one of the stalls.
TEST(HostFixFloor, TheFetchThatStartsLoaderWorkersIsWarmUpBothSides) {
  std::vector<double> fetch(10, 0.1);
  fetch[0] = 800;
  fetch[6] = 500;
  const Trace workers = testing::ImportChrome(LoaderStalls(fetch));
  const StepWindows w = TraceToSteps(workers, PrimaryWorker(workers));
  ASSERT_EQ(w.warmup.size(), 1u);
  EXPECT_EQ(w.steps.size(), 9u);
  const Trace single = testing::ImportChrome(LoaderStalls(fetch, /*single=*/true));
  const StepWindows s = TraceToSteps(single, PrimaryWorker(single));
  EXPECT_TRUE(s.warmup.empty());
  EXPECT_EQ(s.steps.size(), 10u);
}

// --- a long wait with nothing launched before it is the runtime starting, not unrecorded work

TEST(HostFixFloor, AWaitWithNothingLaunchedIsStartupNotUnrecordedWorkBothSides) {
  auto trace = [](bool launch) {
    std::string ev = X("cuda_runtime", "cudaGetDeviceProperties", 1, 1, 0, 50);
    if (launch) ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 100, 10, testing::Corr(1));
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 200, 185000);
    return Doc(ev, kT4);
  };
  const std::string idle = testing::EvidenceText(
      *testing::FindFinding(AnalyzeTrace(testing::ImportChrome(trace(false))), "device_activity_missing"));
  EXPECT_NE(idle.find("with no launch before it in the window: the runtime starting"), std::string::npos) << idle;
  EXPECT_EQ(idle.find("still running work"), std::string::npos);
  const std::string busy = testing::EvidenceText(
      *testing::FindFinding(AnalyzeTrace(testing::ImportChrome(trace(true))), "device_activity_missing"));
  EXPECT_NE(busy.find("the device was still running work then"), std::string::npos) << busy;
}

// --- CUDA activity asked for, none delivered: the header's CUPTI version says the tracer started

TEST(HostFixFloor, ACuptiVersionInTheHeaderMeansDeviceActivityWasRequestedBothSides) {
  auto trace = [](bool cupti) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, i * 400.0, 390);
      ev += X("cpu_op", "aten::_flash_attention_forward", 1, 1, i * 400.0 + 20, 300);
    }
    return Doc(ev, std::string(kT4) + (cupti ? ",\"cupti_version\":24,\"cuda_runtime_version\":12060" : ""));
  };
  Trace t = testing::ImportChrome(trace(true));
  EXPECT_TRUE(t.worker(PrimaryWorker(t)).device_tracer_started);
  const Report requested = AnalyzeTrace(t);
  const Finding* lost = testing::FindFinding(requested, "device_activity_missing");
  ASSERT_NE(lost, nullptr);
  EXPECT_NE(lost->title.find("the device tracer was on"), std::string::npos) << lost->title;
  EXPECT_NE(testing::EvidenceText(*lost).find("CUPTI version"), std::string::npos);
  // Without it, CPU activity alone may have been asked for: the advice is to record the device.
  const Report cpu_only = AnalyzeTrace(testing::ImportChrome(trace(false)));
  const Finding* off = testing::FindFinding(cpu_only, "device_activity_missing");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->title.find("the device tracer was on"), std::string::npos) << off->title;
  EXPECT_NE(off->fix.pytorch.find("ProfilerActivity.CUDA"), std::string::npos);
}

// --- torch.compile by its frames, not by any Dynamo file

TEST(HostFixFloor, TheProfilersOwnDynamoConfigReadsAreNoTorchCompile) {
  auto with_frame = [](const char* frame) {
    std::string ev = X("python_function", "torch/profiler/profiler.py(130): start_trace", 1, 1, 0, 50);
    ev += X("python_function", frame, 1, 1, 10, 5);
    ev += X("cpu_op", "aten::mm", 1, 1, 100, 500);
    Trace t = testing::ImportChrome(Doc(ev));
    return TraceToAppliedOptimizations(t, PrimaryWorker(t)).compiled;
  };
  EXPECT_FALSE(with_frame("torch/_dynamo/config_utils.py(409): __getattr__"));
  // Eager PyTorch wraps the optimizers' step in Dynamo's disable wrapper: no compile either.
  EXPECT_FALSE(with_frame("torch/_dynamo/eval_frame.py(632): _fn"));
  EXPECT_FALSE(with_frame("torch/_compile.py(32): inner"));
  EXPECT_TRUE(with_frame("torch/_dynamo/convert_frame.py(1121): __call__"));
}

}  // namespace
}  // namespace stepdoctor
