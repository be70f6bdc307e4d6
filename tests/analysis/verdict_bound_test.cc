// The verdict follows what bounds the step: a finding whose own fix the what-if replay says
// would leave the step as long (another side bounds it) yields to that side's finding.
#include <gtest/gtest.h>

#include <vector>

#include "stepdoctor/analysis/verdict.h"

namespace stepdoctor {
namespace {

// A 615 ms step: exposed collectives 27.4%, the device waiting on the host 24.9%; the replay
// without the collectives predicts `predicted_ms`, bound by `bound_by`, its untransformed
// replay `model_ms`.
std::vector<Finding> CommThenHost(double predicted_ms, const char* bound_by, double model_ms = 615) {
  std::vector<Finding> f(2);
  f[0].id = "collective_bound";
  f[0].severity = FindingSeverity::kModerate;
  f[0].share_pct = 27.4;
  f[0].title = "Collectives take 27.4% of each step";
  Prediction p;
  p.predicted = true;
  p.baseline_step_ms = 615;
  p.model_baseline_ms = model_ms;
  p.predicted_step_ms = predicted_ms;
  p.speedup = 615 / predicted_ms;
  p.bound_by = bound_by;
  f[0].prediction = p;
  f[1].id = "host_bound";
  f[1].severity = FindingSeverity::kModerate;
  f[1].share_pct = 24.9;
  f[1].title = "the device waits on the host 24.9% of each 615 ms step";
  return f;
}

TEST(VerdictBound, AFixThatGainsNothingYieldsToTheSideThatBoundsIt) {
  std::vector<Finding> f = CommThenHost(615, "host");
  RankBoundingFindingsFirst(&f);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].id, "host_bound");
  EXPECT_EQ(f[1].id, "collective_bound");
  const Verdict v = MakeVerdict(f, nullptr);
  EXPECT_EQ(v.bottleneck, Bottleneck::kHost);
  EXPECT_NE(v.summary.find("host-bound: the device waits on the host 24.9%"), std::string::npos) << v.summary;
  EXPECT_NE(v.summary.find("exposed communication holds 27.4%"), std::string::npos) << v.summary;
  EXPECT_NE(v.summary.find("the host still bounds it"), std::string::npos) << v.summary;
}

TEST(VerdictBound, AFixThatGainsStaysTheVerdict) {
  std::vector<Finding> f = CommThenHost(480, "host");  // 1.28x
  RankBoundingFindingsFirst(&f);
  EXPECT_EQ(f[0].id, "collective_bound");
  const Verdict v = MakeVerdict(f, nullptr);
  EXPECT_EQ(v.bottleneck, Bottleneck::kCommunication);
  EXPECT_EQ(v.summary.find("still bounds"), std::string::npos) << v.summary;
}

TEST(VerdictBound, AReplayThatMissesTheMeasuredStepDecidesNothing) {
  std::vector<Finding> f = CommThenHost(615, "host", /*model_ms=*/800);  // 30% off
  RankBoundingFindingsFirst(&f);
  EXPECT_EQ(f[0].id, "collective_bound");
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kCommunication);
}

TEST(VerdictBound, NoFindingOfTheBoundingSideLeavesTheVerdict) {
  std::vector<Finding> f = CommThenHost(615, "input");  // no input finding stands
  RankBoundingFindingsFirst(&f);
  EXPECT_EQ(f[0].id, "collective_bound");
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kCommunication);
  f = CommThenHost(615, "communication");  // bound by its own side: nothing to yield to
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kCommunication);
}

TEST(VerdictBound, AHighFindingThatGainsNothingYieldsToo) {
  std::vector<Finding> f = CommThenHost(615, "host");
  f[0].severity = FindingSeverity::kHigh;
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kHost);
}

// The headline and the first finding agree: a compute-bound verdict over a moderate host
// finding (a CPU-only TF1 run: operators compute 70.7%, overhead 29.3%) lists compute_bound
// first; where a high finding makes the verdict, it stays first.
TEST(VerdictBound, TheFindingsBeginWhereTheVerdictDoes) {
  auto findings = [](FindingSeverity host_severity) {
    std::vector<Finding> f(2);
    f[0].id = "host_bound";
    f[0].severity = host_severity;
    f[0].share_pct = 29.3;
    f[0].title = "29.3% of the step is framework overhead";
    f[1].id = "compute_bound";
    f[1].severity = FindingSeverity::kNone;
    f[1].share_pct = 70.7;
    f[1].title = "the CPU computes 70.7% of the step";
    return f;
  };
  std::vector<Finding> f = findings(FindingSeverity::kModerate);
  Verdict v = MakeVerdict(f, nullptr);
  ASSERT_EQ(v.bottleneck, Bottleneck::kDeviceCompute) << v.summary;
  LeadWithTheVerdictsFinding(v, &f);
  EXPECT_EQ(f[0].id, "compute_bound");
  EXPECT_EQ(f[1].id, "host_bound");

  f = findings(FindingSeverity::kHigh);
  v = MakeVerdict(f, nullptr);
  ASSERT_EQ(v.bottleneck, Bottleneck::kHost) << v.summary;
  LeadWithTheVerdictsFinding(v, &f);
  EXPECT_EQ(f[0].id, "host_bound");

  // A summary that names no finding moves nothing.
  f = findings(FindingSeverity::kModerate);
  LeadWithTheVerdictsFinding(Verdict{Bottleneck::kUnknown, "no clear bottleneck"}, &f);
  EXPECT_EQ(f[0].id, "host_bound");
}

}  // namespace
}  // namespace stepdoctor
