// The mechanisms the CPU profiler shapes rely on, on small inputs built here: step ranges named
// by users, operators' own work vs their dispatch, and what autocast and TorchScript leave in a
// trace (in use, so not advised).
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/cpu_op_work.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

TEST(StepAnnotationNames, WhatUsersCallAStep) {
  for (const char* n : {"train_step", "training_step", "train_step_12", "Iteration 3", "step#4", "step",
                        "## train_step ##", "TRAIN_BATCH", "train-iter-7", "train_function", "Step:ModeKeys.TRAIN"})
    EXPECT_TRUE(IsStepAnnotationName(n)) << n;
  for (const char* n : {"Optimizer.step#SGD.step", "scheduler.step", "ProfilerStep", "forward", "backward",
                        "step_size", "train", "batch", "aten::step", "stepdoctor_12", "eval_step"})
    EXPECT_FALSE(IsStepAnnotationName(n)) << n;
}

// Ranges named train_step_<i> bound the steps and number them; what they hold is analysed.
TEST(StepAnnotationNames, NumberedRangesAreStepsWithTheirNumbers) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = 10'000.0 * i;
    ev += X("user_annotation", ("train_step_" + std::to_string(10 + i)).c_str(), 1, 1, t, 9'000);
    ev += X("user_annotation", "forward", 1, 1, t + 100, 4'000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + 200, 3'800);
  }
  Trace trace = testing::ImportChrome(Doc(ev));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.steps.size(), 4u);
  EXPECT_FALSE(w.inferred);
  EXPECT_EQ(w.steps[0].number, 10);
  EXPECT_EQ(w.steps[3].number, 13);
  EXPECT_NE(w.source.find("train_step_10"), std::string::npos) << w.source;
}

Timeline Line(std::vector<std::tuple<int64_t, int64_t, StringId>> events) {
  Timeline t;
  for (auto [s, d, n] : events) t.Add(s, d, n, EventKind::kFrameworkOp);
  return t;  // in start order, enclosing first, as a finalized trace keeps them
}

// A wrapper's own time between its children is dispatch; a GEMM's own time is work, however
// small the children around it; an operator shorter than kTinyOpNs is dispatch.
TEST(CpuOpWork, OwnTimeInPiecesSplitsWorkFromDispatch) {
  Trace names;
  const StringId wrap = names.strings.Intern("forward"), op = names.strings.Intern("aten::tanh"),
                 gemm = names.strings.Intern("aten::addmm"), tiny = names.strings.Intern("aten::expand");
  std::vector<std::tuple<int64_t, int64_t, StringId>> ev;
  // A 99 us `forward` of ten 4 us ops, 5 us apart: no work, all dispatch.
  ev.push_back({0, 99'000, wrap});
  for (int i = 0; i < 10; ++i) ev.push_back({5'000 + i * 9'000, 4'000, op});
  // A 60 us addmm with a 1 us child at its start: 59 us of work of its own.
  ev.push_back({200'000, 60'000, gemm});
  ev.push_back({200'000, 1'000, tiny});
  Timeline t = Line(ev);
  StepAnnotationNames is_step(names);
  int top = 0;
  CpuOpPieces p = TimelineToCpuOpPieces(t, is_step, [&](int64_t, int64_t) { ++top; });
  EXPECT_EQ(top, 2);
  int64_t work = 0, dispatch = 0;
  for (const Interval& iv : p.work) work += iv.end - iv.start;
  for (const Interval& iv : p.dispatch) dispatch += iv.end - iv.start;
  EXPECT_EQ(work, 59'000);
  EXPECT_EQ(dispatch, 99'000 + 1'000);
}

// The tiny-op threshold on both sides: an operator of kTinyOpNs is work, one just under is not.
TEST(CpuOpWork, TinyOpThresholdBothSides) {
  Trace names;
  const StringId op = names.strings.Intern("aten::mul");
  StepAnnotationNames is_step(names);
  Timeline under = Line({{0, kTinyOpNs - 100, op}});
  Timeline at = Line({{0, kTinyOpNs, op}});
  EXPECT_TRUE(TimelineToCpuOpPieces(under, is_step, [](int64_t, int64_t) {}).work.empty());
  EXPECT_EQ(TimelineToCpuOpPieces(at, is_step, [](int64_t, int64_t) {}).work.size(), 1u);
}

// The autograd profiler rounds start and duration apart: a child may end past its parent. The
// parent's own time is not counted twice, nor negative.
TEST(CpuOpWork, ChildOverhangingItsParentIsClamped) {
  Trace names;
  const StringId a = names.strings.Intern("aten::linear"), b = names.strings.Intern("aten::addmm");
  Timeline t = Line({{0, 50'000, a}, {2'000, 49'000, b}});
  StepAnnotationNames is_step(names);
  CpuOpPieces p = TimelineToCpuOpPieces(t, is_step, [](int64_t, int64_t) {});
  int64_t total = 0;
  for (const auto* v : {&p.work, &p.dispatch})
    for (const Interval& iv : *v) total += iv.end - iv.start;
  EXPECT_EQ(total, 50'000);
}

// torch.autocast re-dispatches a matrix op to itself after casting its inputs; full-precision
// ops that promote a scalar (aten::where, aten::clamp) cast and call an overload too: not autocast.
TEST(AppliedOptimizations, AutocastByItsRedispatch) {
  auto ops = [](const char* name, double t) {
    return X("cpu_op", name, 1, 1, t, 100) + X("cpu_op", "aten::to", 1, 1, t + 1, 10) +
           X("cpu_op", "aten::_to_copy", 1, 1, t + 2, 8) + X("cpu_op", name, 1, 1, t + 20, 70);
  };
  Trace amp = testing::ImportChrome(Doc(ops("aten::linear", 0)));
  EXPECT_TRUE(TraceToAppliedOptimizations(amp, PrimaryWorker(amp)).mixed_precision());
  Trace where = testing::ImportChrome(Doc(ops("aten::where", 0) + ops("aten::clamp", 200)));
  EXPECT_FALSE(TraceToAppliedOptimizations(where, PrimaryWorker(where)).mixed_precision());
  // Casts inside the inner call, not beside it: a plain op calling an overload.
  Trace nested = testing::ImportChrome(Doc(X("cpu_op", "aten::linear", 1, 1, 0, 100) +
                                           X("cpu_op", "aten::linear", 1, 1, 1, 90) + X("cpu_op", "aten::to", 1, 1, 2, 10)));
  EXPECT_FALSE(TraceToAppliedOptimizations(nested, PrimaryWorker(nested)).mixed_precision());
}

TEST(AppliedOptimizations, TorchScriptByItsGraphs) {
  Trace jit = testing::ImportChrome(
      Doc(X("cpu_op", "torch::jit::(anonymous namespace)::DifferentiableGraphBackward", 1, 1, 0, 100)));
  AppliedOptimizations a = TraceToAppliedOptimizations(jit, PrimaryWorker(jit));
  EXPECT_TRUE(a.torchscript);
  EXPECT_TRUE(a.any_compilation());
  Trace eager = testing::ImportChrome(Doc(X("cpu_op", "forward", 1, 1, 0, 100)));
  EXPECT_FALSE(TraceToAppliedOptimizations(eager, PrimaryWorker(eager)).any_compilation());
}

TEST(AppliedOptimizations, GraphCaptureByItsCallsNotByCaptureQueries) {
  // NCCL and the caching allocator ask whether a stream is being captured before each launch,
  // graphs or not: those queries are no capture.
  Trace queries = testing::ImportChrome(Doc(X("cuda_runtime", "cudaStreamIsCapturing", 1, 1, 0, 2) +
                                            X("cuda_runtime", "cudaStreamGetCaptureInfo_v2", 1, 1, 10, 2) +
                                            X("cuda_runtime", "hipStreamGetCaptureInfo", 1, 1, 20, 2)));
  AppliedOptimizations q = TraceToAppliedOptimizations(queries, PrimaryWorker(queries));
  EXPECT_EQ(q.capture_calls, 0);
  EXPECT_FALSE(q.any_compilation());
  EXPECT_TRUE(q.Labels().empty());
  for (const char* call : {"cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaGraphInstantiate", "hipStreamEndCapture"}) {
    Trace capture = testing::ImportChrome(Doc(X("cuda_runtime", call, 1, 1, 0, 2)));
    EXPECT_EQ(TraceToAppliedOptimizations(capture, PrimaryWorker(capture)).capture_calls, 1) << call;
  }
}

TEST(AppliedOptimizations, TorchCompileByInductorsTritonKernels) {
  // No host range names the compiled region (inference under PyTorch 2.0): the kernels do.
  auto trace = [](const char* kernel) {
    return testing::ImportChrome(Doc(X("cpu_op", "aten::linear", 1, 1, 0, 50) +
                                     X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 5, testing::Corr(1)) +
                                     X("kernel", kernel, 0, 7, 20, 30, testing::Corr(1))));
  };
  for (const char* k : {"triton_poi_fused_add_relu_0", "triton__0d1d2d3de", "triton_red_fused_sum_1"}) {
    Trace t = trace(k);
    EXPECT_TRUE(TraceToAppliedOptimizations(t, PrimaryWorker(t)).compiled) << k;
  }
  for (const char* k : {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "ampere_sgemm_128x64_tn", "my_triton_kernel"}) {
    Trace t = trace(k);
    EXPECT_FALSE(TraceToAppliedOptimizations(t, PrimaryWorker(t)).compiled) << k;
  }
}

// A CPU-only step of tiny ops under TorchScript: host-bound, and the advice is not to compile.
TEST(AppliedOptimizations, CpuHostBoundUnderTorchScriptAdvisesNoCompile) {
  std::string ev;
  for (int s = 0; s < 5; ++s) {
    const double t = s * 1'000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(s)).c_str(), 1, 1, t, 900);
    ev += X("cpu_op", "<forward op>", 1, 1, t + 10, 800);  // 100 ops of 3 us, 8 us apart
    for (int k = 0; k < 100; ++k) ev += X("cpu_op", "aten::tanh", 1, 1, t + 12 + k * 8, 3);
  }
  Report r = AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost);
  ASSERT_FALSE(r.coverage.applied.empty());
  EXPECT_EQ(r.coverage.applied[0], "TorchScript");
  for (const auto& f : r.findings) EXPECT_EQ(f.fix.pytorch.find("torch.compile("), std::string::npos) << f.id;
}

// CPU-only steps whose forward a record_function range wraps: what runs between its two
// operators is the caller's code (host time), not the operators' work. The same shape with an
// operator in the annotation's place is work: an operator's own time is its compute.
TEST(CpuOpWork, UserAnnotationOwnTimeIsHostNotCompute) {
  auto steps = [](const char* cat, const char* wrapper) {
    std::string ev;
    for (int s = 0; s < 5; ++s) {
      const double t = s * 10'000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(s)).c_str(), 1, 1, t, 9'900);
      ev += X(cat, wrapper, 1, 1, t + 100, 9'600);  // 9.6 ms, of which 2 ms in operators
      ev += X("cpu_op", "aten::addmm", 1, 1, t + 500, 1'000);
      ev += X("cpu_op", "aten::addmm", 1, 1, t + 5'000, 1'000);
    }
    return AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  };
  const Report wrapped = steps("user_annotation", "model_forward");
  EXPECT_NE(wrapped.verdict.bottleneck, Bottleneck::kDeviceCompute) << wrapped.verdict.summary;
  ASSERT_FALSE(wrapped.breakdown.empty());
  double compute = 0;
  for (const auto& p : wrapped.breakdown)
    if (p.category == "device_compute") compute = p.pct;
  EXPECT_NEAR(compute, 20.2, 0.5);  // the two 1 ms addmm calls of each 9.9 ms step
  const Report op = steps("cpu_op", "aten::conv2d");
  EXPECT_EQ(op.verdict.bottleneck, Bottleneck::kDeviceCompute) << op.verdict.summary;
}

// A Chrome trace a program wrote of its own spans (no category, no framework's marks) says where
// the time went, not what bounds it: low confidence, and a note naming the one call that holds
// half the window. The same spans with a category are a profiler's and keep their confidence.
TEST(ProgramSpans, OwnSpansLowerConfidenceAndNameTheLongCall) {
  auto spans = [](const char* cat, double setup_ms) {
    std::string ev = "{\"traceEvents\":[";
    ev += X(cat, "Creating wrapper", 7, 1, 0, setup_ms * 1000).substr(1);
    for (int i = 0; i < 6; ++i) {
      const double t = setup_ms * 1000 + 100 + 9'000.0 * i;
      ev += X(cat, "load batch", 7, 1, t, 2'000);
      ev += X(cat, "run model", 7, 1, t + 2'100, 6'500);
    }
    return AnalyzeTrace(testing::ImportChrome(ev + "]}"));
  };
  const Report own = spans("", 80);
  EXPECT_EQ(own.coverage.confidence, "low");
  bool named = false;
  for (const auto& n : own.notes)
    if (n.find("program's own spans") != std::string::npos) named = n.find("'Creating wrapper'") != std::string::npos;
  EXPECT_TRUE(named) << (own.notes.empty() ? "" : own.notes.front());
  // Without a call that holds half the window the note stays, naming none.
  const Report short_setup = spans("", 5);
  bool note = false, call = false;
  for (const auto& n : short_setup.notes)
    if (n.find("program's own spans") != std::string::npos) {
      note = true;
      call = n.find("one call") != std::string::npos;
    }
  EXPECT_TRUE(note);
  EXPECT_FALSE(call);
  // The same spans with a category are not the program's own: no such note.
  const Report profiled = spans("function", 80);
  for (const auto& n : profiled.notes) EXPECT_EQ(n.find("program's own spans"), std::string::npos) << n;
}

}  // namespace
}  // namespace stepdoctor
