// The batch what-if (`batch:scale=K`, analysis/whatif + batch_scaling): what a step spends per
// item grows K times, what it spends per step or per parameter does not; on the project's measured
// batch sweep (examples/whatif/batch.json) every prediction lands within 15% of the larger batch's
// measured step.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/batch_scaling.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

Prediction Predict(const Trace& t, const std::string& fix) {
  auto f = ParseFix(fix);
  EXPECT_TRUE(f.ok()) << f.message();
  WhatIfReport r = TraceToWhatIf(t, {*f}, WhatIfOptions{});
  return r.predictions.empty() ? Prediction{} : r.predictions[0];
}

TEST(WhatIfBatch, ParsesScaleAndRefusesOthers) {
  auto f = ParseFix("batch:scale=4");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kind, FixKind::kBatch);
  EXPECT_DOUBLE_EQ(f->scale, 4);
  EXPECT_DOUBLE_EQ(ParseFix("batch:scale=0.5")->scale, 0.5);
  for (const char* bad : {"batch", "batch:scale=1", "batch:scale=0", "batch:scale=100", "batch:x4", "batch:scale=4x"})
    EXPECT_FALSE(ParseFix(bad).ok()) << bad;
}

TEST(WhatIfBatch, PerParameterNames) {
  for (const char* n : {"Optimizer.step#Adam.step", "Optimizer.zero_grad#SGD.zero_grad", "torch::autograd::AccumulateGrad",
                        "ResourceApplyAdam", "ApplyGradientDescent", "Adam/update_w/ResourceApplyAdam"})
    EXPECT_TRUE(PerParameterName(n)) << n;
  for (const char* n : {"aten::addmm", "Applied", "aten::add_", "ProfilerStep#3"}) EXPECT_FALSE(PerParameterName(n)) << n;
}

// A CPU-only step: a 1 ms forward GEMM, then the optimizer's 1 ms update inside
// Optimizer.step#SGD.step. At twice the batch the GEMM's work doubles (less its dispatch), the
// update does not: about 3 ms, not the 4 ms of scaling everything.
TEST(WhatIfBatch, CpuOperatorsGrowOptimizerStays) {
  std::string ev;
  double t = 0;
  for (int i = 0; i < 6; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 2000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t, 1000);
    ev += X("user_annotation", "Optimizer.step#SGD.step", 1, 1, t + 1000, 1000);
    ev += X("cpu_op", "aten::add_", 1, 1, t + 1000, 1000);
    t += 2000;
  }
  Prediction p = Predict(testing::ImportChrome(Doc(ev)), "batch:scale=2");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_DOUBLE_EQ(p.batch_scale, 2);
  const double expected = 2.0 + (1.0 - double(kCpuDispatchNs) / 1e6);  // 1 ms stays, the GEMM's work doubles
  EXPECT_NEAR(p.predicted_step_ms, expected, 0.05);
  EXPECT_NEAR(p.throughput_speedup, 2 * 2.0 / expected, 0.05);  // items per second
}

// A GPU step: the host launches a 2 ms forward kernel and, inside the optimizer's step, a 1 ms
// update kernel, then waits. At 3x the batch the forward kernel takes 6 ms; the update stays.
TEST(WhatIfBatch, GpuKernelsGrowOptimizerKernelsStay) {
  std::string ev;
  double t = 0;
  int corr = 1;
  for (int i = 0; i < 6; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 3120);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t, 10, Corr(corr));
    ev += X("kernel", "volta_sgemm_128x64_nn", 0, 7, t + 15, 2000,
            "{\"correlation\":" + std::to_string(corr++) + ",\"stream\":7,\"device\":0}");
    ev += X("user_annotation", "Optimizer.step#Adam.step", 1, 1, t + 20, 20);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 25, 10, Corr(corr));
    ev += X("kernel", "multi_tensor_apply_kernel", 0, 7, t + 2015, 1000,
            "{\"correlation\":" + std::to_string(corr++) + ",\"stream\":7,\"device\":0}");
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 40, 3075);
    t += 3120;
  }
  const std::string props = ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\",\"computeMajor\":7,\"computeMinor\":0}]";
  Prediction p = Predict(testing::ImportChrome(Doc(ev, props)), "batch:scale=3");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.predicted_step_ms, 3.12 + 4.0, 0.2);
  EXPECT_EQ(p.bound_by, "device");
}

// Device work not recorded: no figure, as for every fix.
TEST(WhatIfBatch, NothingThatGrowsSaysSo) {
  std::string ev;
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 1000);
    ev += X("user_annotation", "Optimizer.step#SGD.step", 1, 1, t, 900);
    ev += X("cpu_op", "aten::add_", 1, 1, t, 900);
    t += 1000;
  }
  Prediction p = Predict(testing::ImportChrome(Doc(ev)), "batch:scale=2");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("grows with the batch"), std::string::npos) << p.why_not;
}

// The project's batch sweep (examples/whatif/record_batch_sweep.py, 2 cores): an MLP whose GEMMs
// dominate, and a tiny model whose dispatch does. Each x4 and x16 prediction within 15% of the
// larger batch's measured mean step.
TEST(WhatIfBatch, MeasuredSweepWithin15Percent) {
  struct Pair {
    const char *before, *after;
    int k;
  };
  for (const Pair& c : {Pair{"mlp_b4", "mlp_b16", 4}, Pair{"mlp_b16", "mlp_b64", 4}, Pair{"mlp_b64", "mlp_b256", 4},
                        Pair{"tiny_b8", "tiny_b32", 4}, Pair{"tiny_b32", "tiny_b128", 4}, Pair{"mlp_b4", "mlp_b64", 16},
                        Pair{"tiny_b8", "tiny_b128", 16}}) {
    SCOPED_TRACE(std::string(c.before) + " -> " + c.after);
    auto b = ImportPaths({testing::SourcePath(std::string("examples/whatif/batch_") + c.before + ".pt.trace.json.gz")});
    auto a = ImportPaths({testing::SourcePath(std::string("examples/whatif/batch_") + c.after + ".pt.trace.json.gz")});
    ASSERT_TRUE(b.ok() && a.ok());
    Prediction p = Predict(b->trace, "batch:scale=" + std::to_string(c.k));
    ASSERT_TRUE(p.predicted) << p.why_not;
    const double measured = Predict(a->trace, "stalls").baseline_step_ms;
    EXPECT_NEAR(p.predicted_step_ms, measured, 0.15 * measured);
    // Scaling the whole step would miss the tiny model by far: its dispatch does not grow.
    if (c.before[0] == 't') EXPECT_GT(c.k * p.baseline_step_ms, 2 * measured);
  }
}

// diagnose: a CPU-only host_bound finding, whose advice is a larger batch, carries the batch
// prediction (items per second in JSON), not "cannot predict".
TEST(WhatIfBatch, CpuHostBoundFindingPredictsALargerBatch) {
  auto in = ImportPaths({testing::SourcePath("examples/whatif/batch_tiny_b8.pt.trace.json.gz")});
  ASSERT_TRUE(in.ok());
  Report r = AnalyzeTrace(in->trace);
  const Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.id == "host_bound") f = &x;
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->prediction && f->prediction->predicted) << (f->prediction ? f->prediction->why_not : "none");
  EXPECT_DOUBLE_EQ(f->prediction->batch_scale, 4);
  EXPECT_GT(f->prediction->throughput_speedup, 2.0);
  const std::string json = RenderJson(r, RenderOptions{});
  EXPECT_NE(json.find("\"predicted_throughput_speedup\""), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
