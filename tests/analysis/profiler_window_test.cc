// Without step markers, the window analysed is what ran between the profiler's own start and
// stop calls: a JAX capture whose start_trace and stop_trace take seconds is not seconds of host work.
#include <gtest/gtest.h>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

TEST(ProfilerWindow, TheProfilersStartAndStopCallsByName) {
  EXPECT_EQ(ProfilerControlOf("$profiler.py:91 start_trace"), ProfilerControl::kStart);
  EXPECT_EQ(ProfilerControlOf("$profiler.py:193 stop_trace"), ProfilerControl::kStop);
  EXPECT_EQ(ProfilerControlOf("torch/autograd/profiler.py(381): _start_trace"), ProfilerControl::kStart);
  // record_function's enter/exit live in the same file: they are the job's ranges.
  EXPECT_EQ(ProfilerControlOf("torch/autograd/profiler.py(800): __enter__"), ProfilerControl::kNone);
  EXPECT_EQ(ProfilerControlOf("torch/autograd/profiler.py(386): __exit__"), ProfilerControl::kNone);
  EXPECT_EQ(ProfilerControlOf("start_trace"), ProfilerControl::kNone);           // no profiler frame
  EXPECT_EQ(ProfilerControlOf("train.py:12 start_trace"), ProfilerControl::kNone);
  EXPECT_EQ(ProfilerControlOf("$profiler.py:40 trace"), ProfilerControl::kNone);
}

// 1 s in start_trace, 30 ms of work, 5 s in stop_trace (times in us).
std::string Capture(const char* start, const char* stop) {
  std::string ev = X("python_function", start, 1, 1, 0, 1e6);
  for (int i = 0; i < 3; ++i) ev += X("cpu_op", "aten::mm", 1, 1, 1e6 + i * 1e4, 9000);
  ev += X("python_function", stop, 1, 1, 1.03e6, 5e6);
  return Doc(ev);
}

TEST(ProfilerWindow, TheWholeWindowIsWhatRanBetweenThem) {
  Trace t = testing::ImportChrome(Capture("$profiler.py:91 start_trace", "$profiler.py:193 stop_trace"));
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  ASSERT_TRUE(w.whole_window);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].dur_ns(), 30'000'000);
  EXPECT_EQ(w.profiler_calls_ns, 6'000'000'000);
  EXPECT_NE(w.source.find("between the profiler's own start and stop calls"), std::string::npos) << w.source;
  Report r = AnalyzeTrace(t);
  bool said = false;
  for (const auto& n : r.notes) said |= n == "the profiler's own start and stop calls (6000 ms) are left out: the window is "
                                              "what ran between them";
  EXPECT_TRUE(said);
  EXPECT_NEAR(r.steps.mean_ms, 30.0, 1e-9);

  // The same ranges under other names are the job's: the window spans them.
  Trace other = testing::ImportChrome(Capture("$data.py:91 load_all", "$data.py:193 save_all"));
  StepWindows o = TraceToSteps(other, PrimaryWorker(other));
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_EQ(o.steps[0].dur_ns(), 6'030'000'000);
  EXPECT_EQ(o.profiler_calls_ns, 0);
}

}  // namespace
}  // namespace stepdoctor
