// record_function ranges in traces that file them with the operators: Kineto before PyTorch 1.10
// ("Operator" for both) and the autograd profiler's export (no category). A user's range encloses
// operators with time between them; read as an operator, that time became the CPU's compute.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/record_function_ranges.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::KindOf;

// A CPU-only forward pass inside `with record_function("model_inference")`: 400 ms, of which its
// operators take 20 ms (ten 2 ms aten::linear calls, each 38 ms apart); `op` names the operators.
std::string InferenceWindow(const char* cat, const char* op = "aten::linear") {
  using testing::X;
  std::string ev = X(cat, "model_inference", 1, 1, 0, 400000);
  for (int i = 0; i < 10; ++i) ev += X(cat, op, 1, 1, 10000 + i * 40000, 2000);
  ev += X(cat, "detach_", 1, 1, 395000, 10) + X(cat, "AddmmBackward0", 1, 1, 396000, 100);
  return ev;
}

TEST(RecordFunctionRanges, NamesOperatorsNeverTake) {
  for (const char* range : {"model_inference", "Optimizer.step#SGD.step", "DistributedDataParallel.forward",
                            "## forward ##", "train_step"})
    EXPECT_TRUE(chrome::IsRecordFunctionRangeName(range)) << range;
  for (const char* op : {"aten::linear", "torch::autograd::AccumulateGrad", "AddmmBackward0", "CudnnConvolutionBackward",
                         "CompiledFunction", "detach", "detach_", "set_data", "autograd::engine::evaluate_function: MmBackward0"})
    EXPECT_FALSE(chrome::IsRecordFunctionRangeName(op)) << op;
}

TEST(RecordFunctionRanges, OldKinetoRangeIsAnAnnotationNotTheCpusCompute) {
  const Trace t = testing::ImportChrome(testing::Doc(InferenceWindow("Operator")));
  EXPECT_EQ(KindOf(t, "model_inference"), EventKind::kUserAnnotation);
  EXPECT_EQ(KindOf(t, "aten::linear"), EventKind::kFrameworkOp);
  EXPECT_EQ(KindOf(t, "detach_"), EventKind::kFrameworkOp);
  EXPECT_EQ(KindOf(t, "AddmmBackward0"), EventKind::kFrameworkOp);
  // The 380 ms between the operators is not operator work: nothing records what ran there.
  const Report r = AnalyzeTrace(t);
  EXPECT_NE(r.verdict.summary.rfind("compute-bound", 0), 0u) << r.verdict.summary;
  bool untraced = false;
  for (const Finding& f : r.findings) untraced |= f.id == "untraced_time";
  EXPECT_TRUE(untraced) << r.verdict.summary;
}

TEST(RecordFunctionRanges, AutogradProfilerExportReadsTheSame) {
  // The export: a bare array, no categories, a process named "CPU functions".
  std::string body = InferenceWindow("x");
  for (size_t p = 0; (p = body.find("\"cat\":\"x\",", p)) != std::string::npos;) body.erase(p, 10);
  for (size_t p = 0; (p = body.find("\"pid\":1,", p)) != std::string::npos;) body.replace(p, 8, "\"pid\":\"CPU functions\",");
  const Trace t = testing::ImportChrome("[" + body.substr(1) + "]");
  EXPECT_EQ(KindOf(t, "model_inference"), EventKind::kUserAnnotation);
  EXPECT_EQ(KindOf(t, "aten::linear"), EventKind::kFrameworkOp);
}

TEST(RecordFunctionRanges, BareOperatorNamesOfOldBuildsStayOperators) {
  // PyTorch before 1.6 named its operators without a namespace ("linear"): a range cannot be told
  // from them, so nothing is re-kinded.
  const Trace t = testing::ImportChrome(testing::Doc(InferenceWindow("Operator", "linear")));
  EXPECT_EQ(KindOf(t, "model_inference"), EventKind::kFrameworkOp);
  EXPECT_EQ(KindOf(t, "linear"), EventKind::kFrameworkOp);
}

TEST(RecordFunctionRanges, NewKinetoCpuOpsAreLeftAlone) {
  // cpu_op is an operator's category only; ranges arrive as user_annotation already.
  const Trace t = testing::ImportChrome(testing::Doc(InferenceWindow("cpu_op")));
  EXPECT_EQ(KindOf(t, "model_inference"), EventKind::kFrameworkOp);
}

}  // namespace
}  // namespace stepdoctor
