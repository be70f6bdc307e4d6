// Host-bound steps under torch.compile: where the host's time is inside the compiled regions
// (their own kernel launches) the advice is CUDA graphs; where it is outside, what runs there;
// where the trace marks no region, neither claim; graph breaks named where several frames ran.
// Signals built directly, and the inside share measured from a trace built inline.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// A 100 ms step with 30 ms of exposed host time, `inside_ms` of it in compiled regions.
StepSignals Step(double inside_ms) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = 5;
  s.mean_step_ms = s.median_step_ms = 100;
  s.step_ms = {100, 100, 100, 100, 100};
  s.category_ms[int(StepCategory::kKernelLaunch)] = 20;
  s.category_ms[int(StepCategory::kHostCompute)] = 10;
  s.category_ms[int(StepCategory::kDeviceCompute)] = 70;
  s.kernels_per_step = 400;
  s.host_in_compiled_ms = inside_ms;
  return s;
}

std::optional<Finding> HostBoundWith(const StepSignals& s, int64_t frames, bool graphs = false) {
  AppliedOptimizations a;
  a.compiled = true;
  a.compiled_frames = frames;
  a.graph_launches = graphs ? 5 : 0;
  Signals sig;
  sig.steps = &s;
  sig.applied = &a;
  return rules::HostBound(sig);
}

bool Has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// A window with no steps where torch.compile's generated kernels each ran once: its first call,
// whose unrecorded host time is Dynamo and Inductor compiling; the advice is to warm the compiled
// model up before profiling. Kernels run twice are calls after the first: the generic advice.
TEST(CompiledHost, FirstCallCompilingIsNamedBothSides) {
  auto window = [](int runs) {
    std::string ev = X("cuda_runtime", "cudaGetDeviceProperties_v2", 1, 1, 0, 500);
    double t = 3'000'000;  // 3 s of nothing recorded first: compiling
    int corr = 1;
    for (int r = 0; r < runs; ++r)
      for (const char* k : {"triton_poi_fused_copy_0", "triton_poi_fused_add_1", "triton_red_fused_sum_2"}) {
        ev += X("cuda_runtime", "cuLaunchKernel", 1, 1, t, 10, testing::Corr(corr));
        ev += testing::StreamKernel(k, t + 20, 50, corr++);
        t += 100;
      }
    return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A10G\"}]");
  };
  const Report first = AnalyzeTrace(testing::ImportChrome(window(1)));
  const Finding* f = testing::FindFinding(first, "untraced_time");
  ASSERT_NE(f, nullptr) << first.verdict.summary;
  EXPECT_TRUE(Has(f->title, "torch.compile compiling the model's first call (3 generated kernels, each run once)"))
      << f->title;
  EXPECT_TRUE(Has(f->fix.pytorch, "compile and warm up outside the profiled window")) << f->fix.pytorch;
  const Report later = AnalyzeTrace(testing::ImportChrome(window(2)));
  const Finding* g = testing::FindFinding(later, "untraced_time");
  ASSERT_NE(g, nullptr) << later.verdict.summary;
  EXPECT_FALSE(Has(g->title, "first call")) << g->title;
}

TEST(CompiledHost, MostHostTimeInsideRegionsAdvisesCudaGraphs) {
  const StepSignals inside = Step(25), outside = Step(5);
  auto in = HostBoundWith(inside, 1), out = HostBoundWith(outside, 1);
  ASSERT_TRUE(in && out);
  EXPECT_TRUE(Has(in->fix.pytorch, "reduce-overhead")) << in->fix.pytorch;
  EXPECT_TRUE(Has(in->fix.summary, "inside its compiled regions")) << in->fix.summary;
  EXPECT_FALSE(Has(out->fix.pytorch, "reduce-overhead")) << out->fix.pytorch;
  EXPECT_TRUE(Has(out->fix.summary, "most of the host time left is outside it")) << out->fix.summary;
  bool shown = false;
  for (const auto& e : in->evidence) shown |= Has(e.label, "inside torch.compile") && Has(e.value, "83.3%");
  EXPECT_TRUE(shown);
}

TEST(CompiledHost, NoRegionOnTheHostClaimsNeitherSide) {
  const StepSignals s = Step(0);
  auto f = HostBoundWith(s, /*frames=*/0);
  ASSERT_TRUE(f);
  EXPECT_TRUE(Has(f->fix.summary, "marks no compiled region")) << f->fix.summary;
  EXPECT_FALSE(Has(f->fix.summary, "host time left is outside")) << f->fix.summary;
  // With CUDA graphs replaying, the graph is the compiled region: what is left is outside.
  auto g = HostBoundWith(s, 0, /*graphs=*/true);
  ASSERT_TRUE(g);
  EXPECT_FALSE(Has(g->fix.pytorch, "reduce-overhead")) << g->fix.pytorch;
}

TEST(CompiledHost, SeveralFramesNameGraphBreaks) {
  const StepSignals s = Step(25);
  auto one = HostBoundWith(s, 1), three = HostBoundWith(s, 3);
  ASSERT_TRUE(one && three);
  EXPECT_FALSE(Has(one->fix.pytorch, "graph_breaks"));
  EXPECT_TRUE(Has(three->fix.pytorch, "TORCH_LOGS=graph_breaks")) << three->fix.pytorch;
}

// The inside share from events: a region spanning the launches of each step, frames counted.
TEST(CompiledHost, InsideShareAndFramesFromATrace) {
  std::string ev;
  int corr = 1;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10'000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10'000);
    ev += X("user_annotation", "Torch-Compiled Region: 0/0", 1, 1, t + 100, 6'000);
    for (int k = 0; k < 50; ++k, ++corr) {
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 200 + k * 110, 100, testing::Corr(corr));
      ev += testing::StreamKernel("triton_poi_fused_add_0", t + 300 + k * 110, 5, corr);
    }
    ev += X("user_annotation", "Torch-Compiled Region: 1/0", 1, 1, t + 6'500, 1'000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 6'600, 800, testing::Corr(corr));
    ev += testing::StreamKernel("triton_poi_fused_mul_1", t + 7'500, 5, corr++);
  }
  Trace trace = testing::ImportChrome(Doc(ev));
  const WorkerId w = PrimaryWorker(trace);
  const AppliedOptimizations a = TraceToAppliedOptimizations(trace, w);
  EXPECT_TRUE(a.compiled);
  EXPECT_EQ(a.compiled_frames, 2);
  const StepSignals s = TraceToStepSignals(trace, w, TraceToSteps(trace, w));
  // 50 launches of 0.1 ms in frame 0, one of 0.8 ms in frame 1: 5.8 ms of launches, and the
  // dispatch between them, inside the regions' 7 ms; the steps' other 3 ms are not.
  EXPECT_GE(s.host_in_compiled_ms, 5.8);
  EXPECT_LE(s.host_in_compiled_ms, 7.0);
}

}  // namespace
}  // namespace stepdoctor
