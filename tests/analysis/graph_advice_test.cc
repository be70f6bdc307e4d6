// Advice and figures that must follow what the trace holds: TensorFlow graph execution in use
// (kernel_launch_bound, compute_bound advise XLA for the graph, never tf.function; nothing about
// XLA where XLA runs), launch advice only with launches recorded, host time that is gaps with
// nothing recorded said to be so, and no critical path where no launch is linked to its device
// work. Signals built directly, traces built inline.
#include <gtest/gtest.h>

#include <string>

#include "advice_vs_applied.h"
#include "inline_chrome.h"
#include "test_util.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// A 100 ms step: the given ms of launch and host time, the rest device compute.
StepSignals Step(double launch_ms, double host_ms, int64_t kernels = 40) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = 5;
  s.mean_step_ms = s.median_step_ms = 100;
  s.step_ms = {100, 100, 100, 100, 100};
  s.category_ms[int(StepCategory::kKernelLaunch)] = launch_ms;
  s.category_ms[int(StepCategory::kHostCompute)] = host_ms;
  s.category_ms[int(StepCategory::kDeviceCompute)] = 100 - launch_ms - host_ms;
  s.kernels_per_step = kernels;
  return s;
}

// The checker over one finding, with the labels coverage would list for `applied`.
std::vector<std::string> Repeats(const Finding& f, const AppliedOptimizations& applied) {
  Report r;
  r.findings.push_back(f);
  r.coverage.applied = applied.Labels();
  return testing::AdviceRepeatingApplied(r);
}

// Signals of a step whose launch share (as TensorFlow's profile states it) is just over the
// kernel_launch_bound threshold, with the trace's optimisations in use pointed to by `applied`.
struct LaunchBoundStep {
  TfSignals tf;
  StepSignals s = Step(kLaunchBoundMinPct + 1, 0);
  Signals sig;
  LaunchBoundStep() {
    tf.step_ms = 100;
    tf.launch_share_pct = kLaunchBoundMinPct + 1;
    sig.tf = &tf;
    sig.steps = &s;
  }
  std::optional<Finding> With(const AppliedOptimizations& applied) {
    sig.applied = &applied;
    return rules::KernelLaunchBound(sig);
  }
};

TEST(GraphAdvice, KernelLaunchBoundAdvisesXlaForAGraphAndNothingOfXlaWhereItRuns) {
  LaunchBoundStep step;
  AppliedOptimizations eager, graph, xla;
  graph.tf_graph = true;
  xla.tf_graph = xla.xla = true;
  auto plain = step.With(eager);
  ASSERT_TRUE(plain);
  EXPECT_NE(plain->fix.tensorflow.find("tf.function(jit_compile=True)"), std::string::npos);
  auto g = step.With(graph);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->fix.tensorflow.find("tf.function"), std::string::npos) << g->fix.tensorflow;
  EXPECT_NE(g->fix.tensorflow.find("tf.config.optimizer.set_jit(True)"), std::string::npos);
  EXPECT_TRUE(Repeats(*g, graph).empty());
  auto x = step.With(xla);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->fix.tensorflow.find("jit_compile"), std::string::npos) << x->fix.tensorflow;
  EXPECT_EQ(x->fix.tensorflow.find("set_jit"), std::string::npos) << x->fix.tensorflow;
  EXPECT_TRUE(Repeats(*x, xla).empty());
}

// PyTorch code under CUDA graph replay: no torch.compile(mode="reduce-overhead") or manual capture
// again; without graphs, capturing them is the advice.
TEST(GraphAdvice, KernelLaunchBoundCapturesNothingAgainWhereGraphsReplayBothSides) {
  LaunchBoundStep step;
  AppliedOptimizations eager, graphs;
  graphs.graph_launches = 10;
  auto plain = step.With(eager);
  ASSERT_TRUE(plain);
  EXPECT_NE(plain->fix.pytorch.find("reduce-overhead"), std::string::npos) << plain->fix.pytorch;
  auto g = step.With(graphs);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->fix.pytorch.find("reduce-overhead"), std::string::npos) << g->fix.pytorch;
  EXPECT_EQ(g->fix.pytorch.find("torch.cuda.graph"), std::string::npos) << g->fix.pytorch;
  EXPECT_TRUE(Repeats(*g, graphs).empty());
}

TEST(GraphAdvice, KernelLaunchBoundNeedsKernelsInEvidence) {
  TfSignals tf;
  tf.step_ms = 100;
  tf.launch_share_pct = kLaunchBoundHighPct + 1;
  StepSignals s = Step(kLaunchBoundHighPct + 1, 0, /*kernels=*/0);
  Signals sig;
  sig.tf = &tf;
  sig.steps = &s;
  EXPECT_FALSE(rules::KernelLaunchBound(sig));
  s.kernels_per_step = 1;
  EXPECT_TRUE(rules::KernelLaunchBound(sig));
}

TEST(GraphAdvice, ComputeBoundAdvisesXlaForAGraphNotTfFunction) {
  for (bool cpu_only : {false, true}) {
    StepSignals s = Step(0, 0);
    s.cpu_only = cpu_only;
    s.category_ms[int(StepCategory::kDeviceCompute)] = kComputeBoundPct + 5;
    Signals sig;
    sig.steps = &s;
    AppliedOptimizations eager, graph, xla;
    graph.tf_graph = true;
    xla.xla = true;
    sig.applied = &eager;
    auto plain = rules::ComputeBound(sig);
    ASSERT_TRUE(plain);
    EXPECT_NE(plain->fix.tensorflow.find("@tf.function(jit_compile=True)"), std::string::npos) << cpu_only;
    sig.applied = &graph;
    auto g = rules::ComputeBound(sig);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->fix.tensorflow.find("tf.function"), std::string::npos) << g->fix.tensorflow;
    EXPECT_NE(g->fix.tensorflow.find("set_jit(True)"), std::string::npos) << g->fix.tensorflow;
    EXPECT_TRUE(Repeats(*g, graph).empty());
    sig.applied = &xla;
    auto x = rules::ComputeBound(sig);
    ASSERT_TRUE(x);
    EXPECT_TRUE(Repeats(*x, xla).empty()) << x->fix.tensorflow;
  }
}

TEST(GraphAdvice, EachFrameworksCodeClaimsOnlyWhatThatFrameworkHasInUse) {
  // A PyTorch step replayed as CUDA graphs is not XLA, and an XLA step is not torch.compile.
  StepSignals s = Step(0, 0);
  s.category_ms[int(StepCategory::kDeviceCompute)] = kComputeBoundPct + 5;
  Signals sig;
  sig.steps = &s;
  AppliedOptimizations graphs, xla;
  graphs.graph_launches = 1;
  xla.xla = true;
  sig.applied = &graphs;
  auto g = rules::ComputeBound(sig);
  ASSERT_TRUE(g);
  EXPECT_NE(g->fix.pytorch.find("compiled already"), std::string::npos) << g->fix.pytorch;
  EXPECT_EQ(g->fix.tensorflow.find("already"), std::string::npos) << g->fix.tensorflow;
  EXPECT_NE(g->fix.tensorflow.find("profile the top kernels"), std::string::npos) << g->fix.tensorflow;
  sig.applied = &xla;
  auto x = rules::ComputeBound(sig);
  ASSERT_TRUE(x);
  EXPECT_NE(x->fix.tensorflow.find("XLA is already in use"), std::string::npos) << x->fix.tensorflow;
  EXPECT_EQ(x->fix.pytorch.find("already"), std::string::npos) << x->fix.pytorch;
  EXPECT_NE(x->fix.pytorch.find("top kernels"), std::string::npos) << x->fix.pytorch;
  EXPECT_TRUE(Repeats(*g, graphs).empty());
  EXPECT_TRUE(Repeats(*x, xla).empty());
}

TEST(GraphAdvice, CheckerCatchesTfFunctionUnderAGraphAndSetJitUnderXla) {
  Finding f;
  f.id = "compute_bound";
  f.fix.tensorflow = "@tf.function(jit_compile=True)\ndef train_step(x, y): ...";
  AppliedOptimizations none, graph, xla;
  graph.tf_graph = true;
  xla.xla = true;
  EXPECT_TRUE(Repeats(f, none).empty());
  EXPECT_FALSE(Repeats(f, graph).empty());
  f.fix.tensorflow = "tf.config.optimizer.set_jit(True)";
  EXPECT_TRUE(Repeats(f, graph).empty());
  EXPECT_FALSE(Repeats(f, xla).empty());
}

// Host time that is mostly gaps with nothing recorded is titled so; launch advice needs launches.
TEST(GraphAdvice, HostBoundSaysWhenItsTimeIsUnrecordedGaps) {
  StepSignals s = Step(0, 20);
  Signals sig;
  sig.steps = &s;
  s.host_short_gap_ms = 20 * kHostUnrecordedGapShare - 0.1;
  auto traced = rules::HostBound(sig);
  ASSERT_TRUE(traced);
  EXPECT_EQ(traced->title.find("nothing recorded"), std::string::npos) << traced->title;
  s.host_short_gap_ms = 20 * kHostUnrecordedGapShare + 0.1;
  auto gaps = rules::HostBound(sig);
  ASSERT_TRUE(gaps);
  EXPECT_NE(gaps->title.find("nothing recorded"), std::string::npos) << gaps->title;
  bool said = false;
  for (const auto& e : gaps->evidence) said |= e.label.find("gaps under 1 ms") != std::string::npos;
  EXPECT_TRUE(said);
}

// A TF graph without launches recorded (a TF1 timeline): "too small" only where tiny operators
// hold most operator time.
TEST(GraphAdvice, HostBoundCallsGraphOpsTooSmallOnlyWhenTinyOnesDominateBothSides) {
  StepSignals s = Step(0, 20, /*kernels=*/0);
  Signals sig;
  sig.steps = &s;
  AppliedOptimizations graph;
  graph.tf_graph = true;
  sig.applied = &graph;
  s.tiny_op_share_pct = kTinyOpsTooSmallSharePct - 0.1;
  auto large = rules::HostBound(sig);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->fix.summary.find("too small"), std::string::npos) << large->fix.summary;
  EXPECT_NE(large->fix.summary.find("scheduling between its operators"), std::string::npos) << large->fix.summary;
  s.tiny_op_share_pct = kTinyOpsTooSmallSharePct + 0.1;
  auto tiny = rules::HostBound(sig);
  ASSERT_TRUE(tiny);
  EXPECT_NE(tiny->fix.summary.find("too small"), std::string::npos) << tiny->fix.summary;
}

TEST(GraphAdvice, HostBoundLaunchAdviceNeedsLaunches) {
  StepSignals s = Step(10, 20);
  Signals sig;
  sig.steps = &s;
  auto with = rules::HostBound(sig);
  ASSERT_TRUE(with);
  EXPECT_NE(with->fix.summary.find("Launch fewer"), std::string::npos);
  EXPECT_NE(with->fix.pytorch.find("CUDAGraph"), std::string::npos);
  for (int64_t kernels : {int64_t(0), int64_t(40)}) {
    StepSignals t = Step(kernels ? 0 : 10, 30, kernels);  // no kernels, or no launch time
    sig.steps = &t;
    auto without = rules::HostBound(sig);
    ASSERT_TRUE(without);
    EXPECT_EQ(without->fix.summary.find("Launch fewer"), std::string::npos) << without->fix.summary;
    EXPECT_EQ(without->fix.pytorch.find("CUDAGraph"), std::string::npos) << without->fix.pytorch;
  }
}

// Four steps of launches and kernels, linked by correlation id or not (as a TF1 timeline).
std::string LaunchesAndKernels(bool linked) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10000.0;
    const std::string corr = linked ? testing::Corr(i + 1) : "";
    const std::string kargs =
        linked ? "{\"correlation\":" + std::to_string(i + 1) + ",\"device\":0,\"stream\":7}" : "{\"device\":0,\"stream\":7}";
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
    ev += X("cpu_op", "aten::mm", 1, 1, t + 100, 300);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 200, 50, corr);
    ev += X("kernel", "gemm_kernel", 1, 7, t + 400, 4000, kargs);
  }
  return Doc(ev);
}

Report AnalyzeJson(const std::string& json) { return AnalyzeTrace(testing::ImportChrome(json)); }

TEST(GraphAdvice, NoCriticalPathWithoutLaunchLinks) {
  Report linked = AnalyzeJson(LaunchesAndKernels(true));
  EXPECT_EQ(linked.coverage.device_activity, "captured");
  EXPECT_TRUE(linked.critical_path.has_value());
  Report unlinked = AnalyzeJson(LaunchesAndKernels(false));
  EXPECT_EQ(unlinked.coverage.device_activity, "captured");
  EXPECT_FALSE(unlinked.critical_path.has_value());
  bool said = false;
  for (const auto& n : unlinked.notes) said |= n.find("no critical path") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace stepdoctor
