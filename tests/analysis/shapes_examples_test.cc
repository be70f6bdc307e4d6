// The project's own CPU recordings of profiler shapes (examples/shapes/, recorded with
// record_shapes.py beside them, truth by construction in its README): what stepdoctor must say
// of each. The files are committed, so these always run; nothing is re-recorded here.
#include <gtest/gtest.h>

#include <filesystem>

#include "advice_vs_applied.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

Report Diagnose(const std::string& name) {
  auto r = ImportPaths({testing::SourcePath("examples/shapes/" + name)});
  EXPECT_TRUE(r.ok()) << r.message();
  if (!r.ok()) return {};
  return AnalyzeTrace(r->trace);
}

const Finding* FindIn(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

bool Applied(const Report& r, const std::string& label) {
  for (const auto& a : r.coverage.applied)
    if (a == label) return true;
  return false;
}

const EvidenceItem* EvidenceOf(const Finding& f, const std::string& label) {
  for (const auto& e : f.evidence)
    if (e.label == label) return &e;
  return nullptr;
}

std::vector<int64_t> StepNumbers(const Report& r) {
  std::vector<int64_t> n;
  for (const auto& s : r.steps.steps) n.push_back(s.number);
  return n;
}

bool AnyFixSays(const Report& r, const std::string& text) {
  for (const auto& f : r.findings)
    if (f.fix.summary.find(text) != std::string::npos || f.fix.pytorch.find(text) != std::string::npos) return true;
  return false;
}

// schedule(wait=1, warmup=1, active=3, repeat=2) + tensorboard_trace_handler: two files, one
// process. Both cycles' steps are the run's, numbered across the cycles.
TEST(ShapesExamples, ProfilerCyclesAreOneWorker) {
  Report r = Diagnose("cycles");
  EXPECT_EQ(r.steps.count, 6);
  EXPECT_EQ(StepNumbers(r), (std::vector<int64_t>{1, 2, 3, 6, 7, 8}));
  EXPECT_EQ(r.coverage.steps, "markers");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_EQ(r.workers.size(), 0u);  // one worker: no per-worker table
  for (const auto& n : r.notes) EXPECT_EQ(n.find("workers read"), std::string::npos) << n;
}

// No schedule, no prof.step(): the optimizer's steps mark the iterations, said to be inferred.
TEST(ShapesExamples, NoMarkersInfersStepsAndLowersConfidence) {
  Report r = Diagnose("no_markers.pt.trace.json.gz");
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_EQ(r.coverage.confidence, "medium");
  EXPECT_NE(r.steps.source.find("Optimizer.step#"), std::string::npos) << r.steps.source;
  EXPECT_GE(r.steps.count, 6);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
}

// No schedule, no optimizer class: record_function("train_step_<i>") ranges are the steps, and
// their numbers the step numbers; the "forward"/"backward" ranges inside are not steps.
TEST(ShapesExamples, NamedStepRangesAreTheSteps) {
  Report r = Diagnose("named_steps.pt.trace.json.gz");
  EXPECT_FALSE(r.steps.whole_window);
  EXPECT_EQ(r.steps.count, 8);
  EXPECT_EQ(StepNumbers(r), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NE(r.steps.source.find("train_step_0"), std::string::npos) << r.steps.source;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
}

// Nothing marks an iteration: one region, said so, with less confidence than steps would give.
TEST(ShapesExamples, InferenceWithoutMarkersIsOneRegion) {
  Report r = Diagnose("inference_no_markers.pt.trace.json.gz");
  EXPECT_TRUE(r.steps.whole_window);
  EXPECT_EQ(r.coverage.steps, "whole_window");
  EXPECT_NE(r.coverage.confidence, "high");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
}

TEST(ShapesExamples, ShapesMemoryAndStackOptionsChangeNothing) {
  Report r = Diagnose("shapes_memory_stack.pt.trace.json.gz");
  EXPECT_EQ(r.steps.count, 6);
  EXPECT_EQ(r.coverage.confidence, "high");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
}

// Workers in use that cannot keep up: input-bound, and the advice knows the workers are there.
TEST(ShapesExamples, SlowWorkersAreInputBound) {
  Report r = Diagnose("workers_slow.pt.trace.json.gz");
  EXPECT_TRUE(Applied(r, "DataLoader worker processes"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput);
  const Finding* f = FindIn(r, "input_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_NE(f->fix.summary.find("already loads in worker processes"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.pytorch.find("num_workers=min("), std::string::npos);
}

// Workers that keep up: each fetch hands over a ready batch. Not the verdict, and no advice to
// add workers.
TEST(ShapesExamples, WorkersThatKeepUpGetNoMoreWorkersAdvice) {
  Report r = Diagnose("workers_fast.pt.trace.json.gz");
  EXPECT_TRUE(Applied(r, "DataLoader worker processes"));
  EXPECT_NE(r.verdict.bottleneck, Bottleneck::kInput);
  if (const Finding* f = FindIn(r, "input_bound")) {
    EXPECT_LE(int(f->severity), int(FindingSeverity::kModerate));
    EXPECT_NE(f->fix.summary.find("More workers will not shorten it"), std::string::npos) << f->fix.summary;
  }
  EXPECT_FALSE(AnyFixSays(r, "more workers if"));
  EXPECT_FALSE(AnyFixSays(r, "raise num_workers"));
  EXPECT_FALSE(AnyFixSays(r, "num_workers=min("));
}

// TorchScript in use (its differentiable graphs): host-bound on tiny ops, and no torch.compile.
TEST(ShapesExamples, TorchScriptIsSeenAndNotAdvisedAgainst) {
  Report r = Diagnose("jit_script.pt.trace.json.gz");
  EXPECT_TRUE(Applied(r, "TorchScript"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost);
  EXPECT_FALSE(AnyFixSays(r, "torch.compile("));
}

// Many tiny eager ops: their dispatch is the step, whatever the wrappers' lengths.
TEST(ShapesExamples, TinyOpsAreHostBound) {
  Report r = Diagnose("tiny_ops.pt.trace.json.gz");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost);
  const Finding* f = FindIn(r, "host_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_GT(f->share_pct, 80.0);
}

TEST(ShapesExamples, BigMatmulIsComputeBound) {
  Report r = Diagnose("big_matmul.pt.trace.json.gz");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_EQ(FindIn(r, "host_bound"), nullptr);
  ASSERT_NE(FindIn(r, "compute_bound"), nullptr);
}

// Sleep and pure Python between the ops: untraced host time, no bottleneck named.
TEST(ShapesExamples, UntracedPythonIsSaidUnknown) {
  Report r = Diagnose("untraced_python.pt.trace.json.gz");
  const Finding* f = FindIn(r, "untraced_time");
  ASSERT_NE(f, nullptr);
  EXPECT_GT(f->share_pct, 50.0);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_NE(r.coverage.confidence, "high");
}

// An evaluation pass every 4th step: a periodic stall with period 4.
TEST(ShapesExamples, EvalEveryFourStepsIsAPeriodicStall) {
  Report r = Diagnose("eval_every4.pt.trace.json.gz");
  const Finding* f = FindIn(r, "step_time_outliers");
  ASSERT_NE(f, nullptr);
  const EvidenceItem* p = EvidenceOf(*f, "period");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, "every 4 steps");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
}

// Gradient accumulation: the optimizer update every 4th micro-batch makes those steps slow.
// That is work, not a stall: no checkpoint advice, no stall-removal prediction.
TEST(ShapesExamples, GradientAccumulationIsNotAStall) {
  Report r = Diagnose("grad_accum.pt.trace.json.gz");
  const Finding* f = FindIn(r, "step_time_outliers");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  const EvidenceItem* p = EvidenceOf(*f, "period");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, "every 4 steps");
  EXPECT_EQ(f->fix.pytorch.find("torch.save"), std::string::npos);
  ASSERT_TRUE(f->prediction.has_value());
  EXPECT_FALSE(f->prediction->predicted);
  EXPECT_DOUBLE_EQ(f->gain_upper_bound, 1.0);
}

// torch.autocast("cpu", dtype=torch.bfloat16): mixed precision in use, not advised.
TEST(ShapesExamples, AutocastIsSeenAndNotAdvised) {
  Report r = Diagnose("autocast_bf16.pt.trace.json.gz");
  EXPECT_TRUE(Applied(r, "mixed precision (autocast)"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_FALSE(AnyFixSays(r, "torch.autocast("));
}

// The older autograd profiler with a DataLoader and no markers: steps from the fetches.
TEST(ShapesExamples, AutogradProfilerWithoutMarkersIsInputBound) {
  Report r = Diagnose("autograd_profiler.pt.trace.json.gz");
  EXPECT_EQ(r.format, "chrome-json (pytorch autograd profiler)");
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_NE(r.steps.source.find("DataLoader"), std::string::npos) << r.steps.source;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_FALSE(Applied(r, "DataLoader worker processes"));
}

// No example's advice turns on what its trace shows in use.
TEST(ShapesExamples, NoAdviceRepeatsWhatIsApplied) {
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("examples/shapes"))) {
    const std::string name = e.path().filename().string();
    if (name.find(".json") == std::string::npos && !e.is_directory()) continue;
    Report r = Diagnose(name);
    for (const auto& v : testing::AdviceRepeatingApplied(r)) ADD_FAILURE() << name << ": " << v;
  }
}

}  // namespace
}  // namespace stepdoctor
