// The profiler's own host work (PyTorch's with_stack Python calls, profile_memory events) is stated
// beside the report; with the Python stacks, a host-bound verdict is held with less confidence.
// Both sides of kProfilerOverheadEvents (per step).
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/profiler_overhead.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

// 4 steps of a host-bound GPU loop: the host works 9 ms, launches one 1 ms kernel; each step
// records `py` python_function events and `mem` [memory] instants.
std::string Loop(int py, int mem) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
    ev += X("cpu_op", "aten::add", 1, 1, t, 8900);
    for (int k = 0; k < py; ++k) ev += X("python_function", "model.py(12): forward", 1, 1, t + 10 + k, 1);
    for (int k = 0; k < mem; ++k)
      ev += ",{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" +
            std::to_string(t + 20 + k) + ",\"args\":{\"Bytes\":512,\"Total Allocated\":1024}}";
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 8900, 20, Corr(i + 1));
    ev += X("kernel", "k", 0, 7, t + 8930, 1000, "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":7}");
  }
  return Doc(ev, ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\",\"computeMajor\":7}]");
}

TEST(ProfilerOverhead, PythonStacksBothSides) {
  const int k = int(kProfilerOverheadEvents);
  Trace below = testing::ImportChrome(Loop(k - 1, 0));
  ProfilerOverhead b = TraceToProfilerOverhead(below, PrimaryWorker(below), 0, 40000 * 1000, 4);
  EXPECT_EQ(b.python_calls, 4 * (k - 1));
  EXPECT_FALSE(b.stacks_inflate_host);
  EXPECT_EQ(b.note, "");
  Trace at = testing::ImportChrome(Loop(k, 0));
  ProfilerOverhead a = TraceToProfilerOverhead(at, PrimaryWorker(at), 0, 40000 * 1000, 4);
  EXPECT_TRUE(a.stacks_inflate_host);
  EXPECT_NE(a.note.find("Python stacks (with_stack=True: " + std::to_string(4 * k) + " Python calls)"), std::string::npos)
      << a.note;
}

TEST(ProfilerOverhead, AHostBoundVerdictOnStacksIsHeldLessFirmly) {
  Report plain = AnalyzeTrace(testing::ImportChrome(Loop(0, 0)));
  ASSERT_EQ(plain.verdict.bottleneck, Bottleneck::kHost) << plain.verdict.summary;
  EXPECT_EQ(plain.coverage.confidence, "high");
  Report stacks = AnalyzeTrace(testing::ImportChrome(Loop(int(kProfilerOverheadEvents), 0)));
  EXPECT_EQ(stacks.verdict.bottleneck, Bottleneck::kHost);
  EXPECT_EQ(stacks.coverage.confidence, "medium");
  ASSERT_FALSE(stacks.notes.empty());
  // Memory events alone are stated, and the confidence stays.
  Report mem = AnalyzeTrace(testing::ImportChrome(Loop(0, int(kProfilerOverheadEvents))));
  EXPECT_EQ(mem.coverage.confidence, "high");
  bool said = false;
  for (const auto& n : mem.notes) said |= n.find("profile_memory=True") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace stepdoctor
