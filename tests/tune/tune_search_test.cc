// The search with a fake runner (fake_runner.h): it finds the known best one knob at a time,
// reports a slower value as slower, never tells two identical settings apart, never spends
// more than its budget, and never chooses a run that crashed or whose loss diverged.
#include "stepdoctor/tune/tune_search.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tune/fake_runner.h"

namespace stepdoctor::tune {
namespace {

using testing::FakeRunner;

Knob EnvKnob(const std::string& name, std::vector<std::string> values) {
  Knob k;
  k.name = name;
  k.values = std::move(values);
  return k;
}

TuneOptions Options(std::vector<Knob> knobs, int64_t budget_s = 600) {
  TuneOptions o;
  o.command = {"train"};
  o.knobs = std::move(knobs);
  o.budget_ns = budget_s * 1'000'000'000;
  o.run_limit_ns = 5'000'000'000;
  o.unit = "steps/s";
  return o;
}

const TuneTrial& Trial(const TuneReport& r, const std::string& setting) {
  for (const auto& t : r.trials)
    if (t.setting == setting) return t;
  ADD_FAILURE() << "no trial " << setting;
  static TuneTrial none;
  return none;
}

TEST(TuneSearch, CoordinateDescentPicksTheKnownBest) {
  FakeRunner fake(0.03);
  fake.factor = {{{"A", "1"}, 1.2}, {{"A", "2"}, 1.5}, {{"B", "y"}, 1.3}, {{"C", "1"}, 0.7}};
  auto r = RunTune(Options({EnvKnob("A", {"0", "1", "2"}), EnvKnob("B", {"x", "y"}), EnvKnob("C", {"0", "1"})}), fake);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->best.settings, (std::vector<std::string>{"A=2", "B=y"}));
  EXPECT_EQ(Trial(*r, "A=2").verdict, TuneVerdict::kKept);
  EXPECT_EQ(Trial(*r, "A=1").verdict, TuneVerdict::kFaster);  // faster, but A=2 more so
  EXPECT_EQ(Trial(*r, "A=1").why, "A=2 was faster");
  EXPECT_EQ(Trial(*r, "B=y").on_top_of, (std::vector<std::string>{"A=2"}));
  EXPECT_EQ(Trial(*r, "C=1").verdict, TuneVerdict::kSlower);
  EXPECT_LT(Trial(*r, "C=1").m.throughput, r->best.m.throughput);
  EXPECT_TRUE(r->best.remeasured);
  EXPECT_EQ(r->best.m.runs.size(), 3u);
  EXPECT_NEAR(r->best.speedup, 1.5 * 1.3, 1.5 * 1.3 * 0.07);
  EXPECT_EQ(r->best.env, (std::vector<std::pair<std::string, std::string>>{{"A", "2"}, {"B", "y"}, {"C", "0"}}));
  EXPECT_EQ(r->best.command_line, "env A=2 B=y C=0 train");
}

TEST(TuneSearch, TwoIdenticalSettingsAreNotReportedDifferent) {
  // Same throughput under both values, 5% noise per run: whatever the draw (40 seeds), the
  // change is never kept nor called slower.
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    FakeRunner fake(0.05, seed);
    auto r = RunTune(Options({EnvKnob("SAME", {"a", "b"})}), fake);
    ASSERT_TRUE(r.ok()) << r.message();
    const TuneTrial& t = Trial(*r, "SAME=b");
    EXPECT_NE(t.verdict, TuneVerdict::kKept) << "seed " << seed;
    EXPECT_NE(t.verdict, TuneVerdict::kSlower) << "seed " << seed;
    EXPECT_TRUE(r->best.settings.empty()) << "seed " << seed;
    EXPECT_DOUBLE_EQ(r->best.speedup, 1.0);
    EXPECT_GE(r->noise_pct, kNoiseFloorPct);
  }
}

TEST(TuneSearch, ABigEnoughChangeBeatsTheSameNoise) {
  // The other side of the test above: 5% noise, a 40% gain, every seed keeps it.
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    FakeRunner fake(0.05, seed);
    fake.factor = {{{"FAST", "1"}, 1.4}};
    auto r = RunTune(Options({EnvKnob("FAST", {"0", "1"})}), fake);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(Trial(*r, "FAST=1").verdict, TuneVerdict::kKept) << "seed " << seed;
  }
}

TEST(TuneSearch, BudgetIsNeverExceededAndTrialsThatDoNotFitAreSkipped) {
  // Every run takes its whole limit plus the kill grace: the worst case the plan allows for.
  for (int64_t budget_s : {40, 55, 70, 90, 200}) {
    SCOPED_TRACE(budget_s);
    FakeRunner fake;
    fake.run_ns = -1;
    fake.factor = {{{"A", "1"}, 1.5}};
    auto r = RunTune(Options({EnvKnob("A", {"0", "1"}), EnvKnob("B", {"0", "1", "2", "3"})}, budget_s), fake);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_LE(fake.spent_ns, budget_s * 1'000'000'000);
    EXPECT_LE(r->used_s, double(budget_s));
    int skipped = 0;
    for (const auto& t : r->trials)
      if (t.verdict == TuneVerdict::kSkipped) {
        ++skipped;
        EXPECT_NE(t.why.find("would not fit in the budget"), std::string::npos) << t.why;
      }
    // 6.25 s per run: 3 baseline + 3 re-measurements need 37.5 s; what is left decides the rest.
    if (budget_s == 40) {
      EXPECT_EQ(skipped, 4);
    }
    if (budget_s == 200) {
      EXPECT_EQ(skipped, 0);
    }
  }
}

TEST(TuneSearch, ABudgetTooSmallForTheBaselineIsAnError) {
  FakeRunner fake;
  auto r = RunTune(Options({EnvKnob("A", {"0", "1"})}, 30), fake);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("--budget 30.0 s"), std::string::npos) << r.message();
  EXPECT_EQ(fake.calls, 0);
  // Without --trial-time the budget is shared out; a run under 1 s is refused.
  TuneOptions o = Options({EnvKnob("A", {"0", "1"})}, 5);
  o.run_limit_ns = 0;
  auto r2 = RunTune(o, fake);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.message().find("too small"), std::string::npos) << r2.message();
}

TEST(TuneSearch, ACrashedTrialIsReportedAndNeverChosen) {
  FakeRunner fake(0.02);
  fake.factor = {{{"W", "8"}, 3.0}, {{"W", "2"}, 1.5}};
  fake.crash = {{{"W", "8"}, "exited with 1: out of memory"}};
  auto r = RunTune(Options({EnvKnob("W", {"0", "8", "2"})}), fake);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(Trial(*r, "W=8").verdict, TuneVerdict::kFailed);
  EXPECT_EQ(Trial(*r, "W=8").why, "exited with 1: out of memory");
  EXPECT_FALSE(Trial(*r, "W=8").measured);
  EXPECT_EQ(r->best.settings, (std::vector<std::string>{"W=2"}));
}

TEST(TuneSearch, ADivergingCheckMetricDisqualifies) {
  FakeRunner fake(0.02);
  fake.factor = {{{"LR", "10"}, 1.6}, {{"LR", "2"}, 1.3}};
  fake.loss = {{{"LR", "10"}, 9.0}, {{"LR", "2"}, 2.05}};  // baseline's last value is 2.0
  TuneOptions o = Options({EnvKnob("LR", {"1", "10", "2"})});
  o.check = true;
  auto r = RunTune(o, fake);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(Trial(*r, "LR=10").verdict, TuneVerdict::kDiverged);
  EXPECT_NE(Trial(*r, "LR=10").why.find("--check-metric 9"), std::string::npos) << Trial(*r, "LR=10").why;
  EXPECT_EQ(r->best.settings, (std::vector<std::string>{"LR=2"}));  // 2.05 is within 10% of 2.0
}

TEST(TuneSearch, CheckDivergenceComparesTheLastValueBothPrinted) {
  EXPECT_EQ(CheckDivergence({}, {5}, 0.1), "");  // no reference: nothing checked
  EXPECT_EQ(CheckDivergence({3, 2, 1}, {3, 2.1}, 0.1), "");
  EXPECT_NE(CheckDivergence({3, 2, 1}, {3, 2.3}, 0.1), "");
  EXPECT_NE(CheckDivergence({3, 2}, {3, std::nan("")}, 0.1), "");
  EXPECT_NE(CheckDivergence({3}, {}, 0.1), "");
}

TEST(TuneSearch, DryRunRunsNothingAndSaysWhatFits) {
  FakeRunner fake;
  TuneOptions o = Options({EnvKnob("A", {"0", "1"}), EnvKnob("B", {"0", "1", "2"})}, 50);
  o.dry_run = true;
  auto r = RunTune(o, fake);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(fake.calls, 0);
  ASSERT_EQ(r->trials.size(), 3u);
  // 6.25 s per run, 37.5 s for the baseline and the best: two runs fit (A=1, its confirmation).
  EXPECT_EQ(r->trials[0].verdict, TuneVerdict::kPlanned);
  EXPECT_EQ(r->trials[1].verdict, TuneVerdict::kSkipped);
  EXPECT_EQ(r->trials[2].verdict, TuneVerdict::kSkipped);
  EXPECT_LE(r->used_s, 50.0);
}

TEST(TuneSearch, AFailingBaselineIsAnError) {
  FakeRunner fake;
  fake.crash = {{{"A", "0"}, "exited with 2: no such file"}};
  auto r = RunTune(Options({EnvKnob("A", {"0", "1"})}), fake);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "the baseline's run 1 of 3 failed: exited with 2: no such file");
}

TEST(TuneSearch, NothingToTuneIsAnError) {
  FakeRunner fake;
  auto r = RunTune(Options({}), fake);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("nothing to tune"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor::tune
