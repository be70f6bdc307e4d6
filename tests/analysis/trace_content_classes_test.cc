// What the trace holds decides what a report may say, each class built inline and tested on
// both sides: input calls alone say nothing of the step; an operator that only moves data is
// named; a trace's own counters are no machine samples; a step numbered past 0 by torch.profiler
// had iterations before it.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::Tf1Lane;
using testing::Tf1Op;

// A file holding the input pipeline's calls alone (SageMaker's DataIterator timeline: tf.data's
// GetNext, several at once) and no step, operator or device work: the window is those calls' own
// span, so their share says nothing about the step; input_bound says so, low, with no gain. With
// operators recorded between the calls the same share stands.
TEST(TraceContentClasses, InputCallsAloneAreNoInputBoundVerdictBothSides) {
  auto report = [](bool ops) {
    std::string ev;
    for (int k = 0; k < 20; ++k) {
      const double t = k * 10000.0;
      ev += testing::X("cpu_op", "dataset::GetNext", 1, 1, t, 6000);
      if (ops) ev += testing::X("cpu_op", "aten::addmm", 1, 1, t + 6000, 3900);
    }
    return AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  };
  const Report alone = report(false);
  const Finding* f = testing::FindFinding(alone, "input_bound");
  ASSERT_NE(f, nullptr) << alone.verdict.summary;
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_EQ(f->gain_upper_bound, 0);
  EXPECT_NE(alone.verdict.summary.rfind("input-bound", 0), 0u) << alone.verdict.summary;
  const Report with_ops = report(true);
  const Finding* g = testing::FindFinding(with_ops, "input_bound");
  ASSERT_NE(g, nullptr) << with_ops.verdict.summary;
  EXPECT_GE(g->severity, FindingSeverity::kModerate);
  EXPECT_GT(g->gain_upper_bound, 1.0);
}

// A CPU step whose time goes mostly to an op that only moves data (a TF1 LCNN's Transpose of
// image patches, 74%) is named, with layout advice; one where the matrix op dominates is not.
TEST(TraceContentClasses, AnOperatorThatOnlyMovesDataIsNamedBothSides) {
  auto report = [](const char* big) {
    std::string ev = Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
    double t = 0;
    for (int k = 0; k < 6; ++k) {
      ev += Tf1Op(1, big, t, 7000);
      ev += Tf1Op(1, "SparseTensorDenseMatMul", t + 7000, 1000);
      ev += Tf1Op(1, "BiasAdd", t + 8000, 1000);
      t += 9000;
    }
    return AnalyzeTrace(testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}"));
  };
  auto layout_evidence = [](const Report& r) {
    const Finding* f = testing::FindFinding(r, "compute_bound");
    if (!f) return std::string("(no compute_bound) ") + r.verdict.summary;
    for (const auto& e : f->evidence)
      if (e.label.find("only moves data") != std::string::npos) return e.value;
    return std::string();
  };
  EXPECT_NE(layout_evidence(report("Transpose")).find("Transpose"), std::string::npos);
  EXPECT_EQ(layout_evidence(report("MatMul")), "");
}

// A TF timeline's allocator counters ("cpu_pool", "gpu_bfc") are the trace's own, not the
// machine's CPU and GPU samples whose names share those families; and allocator totals from a
// profiler's memory events are no live samples either: neither gets "live samples judged over the
// profiled steps". A samples series of the family does.
TEST(TraceContentClasses, TraceCountersAreNotLiveSamplesBothSides) {
  auto notes_of = [](const std::string& counter) {
    std::string ev;
    for (int k = 0; k < 4; ++k) {
      const double t = k * 10000.0;
      ev += testing::X("user_annotation", ("ProfilerStep#" + std::to_string(k)).c_str(), 1, 1, t, 10000);
      ev += testing::X("cpu_op", "aten::addmm", 1, 1, t + 100, 9000);
      ev += ",{\"ph\":\"C\",\"name\":\"" + counter + "\",\"pid\":1,\"tid\":0,\"ts\":" + std::to_string(t + 50) +
            ",\"args\":{\"" + counter + "\":" + std::to_string(40 + k) + "}}";
    }
    const Trace t = testing::ImportChrome(Doc(ev));
    std::string all;
    for (const auto& c : t.counters) all += "[" + c.name + "]";
    for (const auto& n : AnalyzeTrace(t).notes) all += n + "\n";
    return all;
  };
  const std::string pool = notes_of("cpu_pool");
  EXPECT_NE(pool.find("[counter:cpu_pool]"), std::string::npos) << pool;
  EXPECT_EQ(pool.find("live samples"), std::string::npos) << pool;
  EXPECT_EQ(notes_of("gpu0_memory_allocated_bytes").find("live samples"), std::string::npos);
}

// One step numbered N >= 1 by torch.profiler (ProfilerStep#N counts the profiler's steps) had N
// iterations before it, so it is no first, cold pass; one numbered 0, or from other markers,
// cannot be told apart from one.
TEST(TraceContentClasses, OneProfilerStepPastZeroIsNoFirstPassBothSides) {
  auto caveat = [](int number) {
    std::string ev = testing::X("user_annotation", ("ProfilerStep#" + std::to_string(number)).c_str(), 1, 1, 0, 10000);
    ev += testing::X("cpu_op", "aten::addmm", 1, 1, 100, 9000);
    const Report r = AnalyzeTrace(testing::ImportChrome(Doc(ev)));
    std::string all;
    for (const auto& e : r.coverage.evidence) all += e + "\n";
    return all;
  };
  EXPECT_NE(caveat(2).find("2 iterations ran before it"), std::string::npos) << caveat(2);
  EXPECT_NE(caveat(0).find("cannot be told without others"), std::string::npos) << caveat(0);
  EXPECT_NE(OneStepCaveat("train_step annotations", 5).find("cannot be told without others"), std::string::npos);
  // Where its one-off start-up shows the one step cold, it says so (a TF1 run whose first
  // _SOURCE op set the run up), instead of "cannot be told".
  const std::string cold = OneStepCaveat("the one sess.run a TF1 timeline records", 0, 75.5);
  EXPECT_NE(cold.find("a first, cold pass: 75.5% of it is one-off start-up"), std::string::npos) << cold;
  EXPECT_EQ(cold.find("whether it is a warm-up"), std::string::npos) << cold;
}

}  // namespace
}  // namespace stepdoctor
