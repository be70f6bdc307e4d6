// Steps inferred where a PyTorch trace has no step markers: from the call of a torch.compile
// frame that recurs once per iteration, not from a frame a graph break or a per-layer block
// calls several times an iteration, and never from a frame called once.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// `iters` iterations of 10 ms: the compiled model's frame 0 once, a graph break's frame 1 twice,
// each as Dynamo records them (its cache lookup, then the compiled region).
std::string CompiledLoop(int iters, int recompile_at = -1) {
  std::string ev;
  for (int i = 0; i < iters; ++i) {
    const double t = 1'000 + 10'000.0 * i;
    ev += X("user_annotation", "TorchDynamo Cache Lookup", 1, 1, t, 20);
    ev += X("user_annotation", i == recompile_at ? "Torch-Compiled Region: 0/1" : "Torch-Compiled Region: 0/0", 1, 1,
            t + 30, 3'000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + 100, 2'000);
    for (int b = 0; b < 2; ++b) {
      ev += X("user_annotation", "Torch-Compiled Region: 1/0", 1, 1, t + 4'000 + b * 2'000, 1'500);
      ev += X("cpu_op", "aten::relu", 1, 1, t + 4'100 + b * 2'000, 1'000);
    }
  }
  return Doc(ev);
}

TEST(IterationAnchors, CompiledFrameCalledOncePerIterationStartsEachStep) {
  Trace trace = testing::ImportChrome(CompiledLoop(5, /*recompile_at=*/2));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.steps.size(), 4u) << w.source;  // the last call starts an iteration that never ends
  EXPECT_TRUE(w.inferred);
  EXPECT_EQ(w.excluded_partial, 1);
  for (const StepWindow& s : w.steps) EXPECT_EQ(s.dur_ns(), 10'000'000);
  EXPECT_NE(w.source.find("compiled model"), std::string::npos) << w.source;
  EXPECT_NE(w.source.find("Torch-Compiled Region: 0/0"), std::string::npos) << w.source;
}

// A frame called once is no iteration: nothing to infer, the whole window is the one step.
TEST(IterationAnchors, CompiledFrameCalledOnceInfersNothing) {
  Trace trace = testing::ImportChrome(CompiledLoop(1));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  EXPECT_EQ(w.source.find("compiled model"), std::string::npos) << w.source;
}

// The DataLoader's fetch outranks the compiled frame where both recur.
TEST(IterationAnchors, DataLoaderFetchOutranksCompiledFrame) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = 10'000.0 * i;
    ev += X("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, t, 1'000);
    ev += X("user_annotation", "Torch-Compiled Region: 0/0", 1, 1, t + 2'000, 3'000);
    ev += X("user_annotation", "Torch-Compiled Region: 0/0", 1, 1, t + 6'000, 3'000);  // called twice per iteration
  }
  Trace trace = testing::ImportChrome(Doc(ev));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.steps.size(), 3u);
  EXPECT_NE(w.source.find("DataLoader"), std::string::npos) << w.source;
}

}  // namespace
}  // namespace stepdoctor
