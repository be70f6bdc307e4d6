// step_time_outliers' schedule, cause and gradient-accumulation judgements, input_bound's
// "workers keep up", and the CPU advice that follows what is in use: each threshold on both
// sides, with signals built directly.
#include <gtest/gtest.h>

#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

#include "test_util.h"

namespace stepdoctor {
namespace {

StepSignals Steps(std::vector<double> ms) { return testing::StepsFromMs(std::move(ms)); }

std::optional<Finding> Eval(std::optional<Finding> (*rule)(const Signals&), const StepSignals& s,
                            const AppliedOptimizations* applied = nullptr) {
  Signals sig;
  sig.steps = &s;
  sig.applied = applied;
  return rule(sig);
}

const EvidenceItem* EvidenceOf(const Finding& f, const std::string& label) {
  for (const auto& e : f.evidence)
    if (e.label == label) return &e;
  return nullptr;
}

// Slow steps `period` apart across 12 steps; a period under kMinOutlierPeriodSteps (slow steps
// in a row) is a slow stretch, not a schedule.
TEST(RuleStepTimeOutliers, MinPeriodBothSides) {
  auto every = [](int64_t period) {
    std::vector<double> ms(12, 100);
    for (size_t i = size_t(period) - 1; i < ms.size(); i += size_t(period)) ms[i] = 250;
    return Steps(ms);
  };
  std::vector<double> stretch(12, 100);
  stretch[4] = stretch[5] = stretch[6] = 250;  // period 1 = kMinOutlierPeriodSteps - 1
  auto f = Eval(rules::StepTimeOutliers, Steps(stretch));
  ASSERT_TRUE(f);
  EXPECT_EQ(EvidenceOf(*f, "period"), nullptr) << f->title;
  auto g = Eval(rules::StepTimeOutliers, every(kMinOutlierPeriodSteps));
  ASSERT_TRUE(g);
  ASSERT_NE(EvidenceOf(*g, "period"), nullptr) << g->title;
  EXPECT_EQ(EvidenceOf(*g, "period")->value, "every 2 steps");
}

// A checkpoint every 6 steps with noise outliers between two of its steps: found while the next
// checkpoint is within kOutlierScheduleLookahead outliers, not past it.
TEST(RuleStepTimeOutliers, ScheduleLookaheadBothSides) {
  auto with_noise = [](size_t noise) {
    std::vector<double> ms(18, 100);
    ms[5] = ms[11] = ms[17] = 400;  // steps 6, 12, 18
    for (size_t k = 0; k < noise; ++k) ms[6 + k] = 140;
    return Steps(ms);
  };
  auto found = Eval(rules::StepTimeOutliers, with_noise(kOutlierScheduleLookahead - 1));
  ASSERT_TRUE(found);
  ASSERT_NE(EvidenceOf(*found, "period"), nullptr) << found->title;
  EXPECT_EQ(EvidenceOf(*found, "period")->value, "every 6 steps");
  auto missed = Eval(rules::StepTimeOutliers, with_noise(kOutlierScheduleLookahead));
  ASSERT_TRUE(missed);
  EXPECT_EQ(EvidenceOf(*missed, "period"), nullptr) << missed->title;
}

// The category holding the slow steps' extra time is named from kOutlierCauseShare of it; input
// says those steps wait for a batch.
TEST(RuleStepTimeOutliers, CauseShareBothSides) {
  auto with_input_share = [](double share) {
    StepSignals s = Steps({100, 100, 200, 100, 100, 100});
    s.per_step_category_ms.assign(6, std::vector<double>(kStepCategoryCount, 0.0));
    for (auto& c : s.per_step_category_ms) c[int(StepCategory::kDeviceCompute)] = 100;
    auto& slow = s.per_step_category_ms[2];
    slow[int(StepCategory::kInput)] = 100 * share;
    slow[int(StepCategory::kDeviceCompute)] += 100 * (1 - share) / 2;
    slow[int(StepCategory::kOther)] = 100 * (1 - share) / 2;
    return s;
  };
  auto below = Eval(rules::StepTimeOutliers, with_input_share(kOutlierCauseShare - 0.001));
  ASSERT_TRUE(below);
  EXPECT_EQ(EvidenceOf(*below, "where the slow steps' extra time goes"), nullptr);
  EXPECT_EQ(below->title.find("wait for a batch"), std::string::npos) << below->title;
  auto above = Eval(rules::StepTimeOutliers, with_input_share(kOutlierCauseShare + 0.001));
  ASSERT_TRUE(above);
  ASSERT_NE(EvidenceOf(*above, "where the slow steps' extra time goes"), nullptr);
  EXPECT_NE(above->title.find("those steps wait for a batch"), std::string::npos) << above->title;
}

// An optimizer update only slow steps run: gradient accumulation when those steps hold
// kOutlierCauseShare of the excess or more; then low, no gain, no stall replay, period its own.
TEST(RuleStepTimeOutliers, GradientAccumulationBothSides) {
  auto accumulate = [](double other_outlier_ms) {
    std::vector<double> ms(16, 100);
    ms[3] = ms[7] = ms[11] = ms[15] = 200;  // the update every 4th micro-batch
    ms[1] = other_outlier_ms;               // and one slow step for another reason
    StepSignals s = Steps(ms);
    SlowOnlyEvent update;
    update.name = "Optimizer.step#Adam.step";
    update.ms_per_step = 100;
    update.steps = {3, 7, 11, 15};
    update.optimizer_update = true;
    s.slow_only_events = {update};
    return s;
  };
  // The update's steps hold 400 ms of excess; the other outlier's excess sets the share.
  const double at_share = 400 / kOutlierCauseShare - 400;  // that outlier's excess at the threshold
  auto acc = Eval(rules::StepTimeOutliers, accumulate(100 + at_share - 1));
  ASSERT_TRUE(acc);
  EXPECT_EQ(acc->severity, FindingSeverity::kLow);
  EXPECT_NE(acc->title.find("gradient accumulation"), std::string::npos) << acc->title;
  ASSERT_NE(EvidenceOf(*acc, "period"), nullptr);
  EXPECT_EQ(EvidenceOf(*acc, "period")->value, "every 4 steps");
  ASSERT_TRUE(acc->prediction.has_value());
  EXPECT_FALSE(acc->prediction->predicted);
  EXPECT_DOUBLE_EQ(acc->gain_upper_bound, 1.0);
  auto not_acc = Eval(rules::StepTimeOutliers, accumulate(100 + at_share + 1));
  ASSERT_TRUE(not_acc);
  EXPECT_EQ(not_acc->title.find("gradient accumulation"), std::string::npos) << not_acc->title;
  EXPECT_FALSE(not_acc->prediction.has_value());
}

// DataLoader workers in use: a mean fetch up to kLoaderReadyFetchMs hands over ready batches
// (moderate at most, no more workers); a longer one means the workers cannot keep up.
TEST(RuleInputBound, LoaderReadyFetchBothSides) {
  auto loader = [](double fetch_ms) {
    StepSignals s = Steps({100, 100, 100, 100, 100});
    s.input_wait_ms = 30;
    s.category_ms[int(StepCategory::kInput)] = 30;
    s.category_ms[int(StepCategory::kDeviceCompute)] = 70;
    s.input_wait_events = {{"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 5 * fetch_ms, 5, 30}};
    return s;
  };
  AppliedOptimizations workers;
  workers.loader_workers = true;
  auto ready = Eval(rules::InputBound, loader(kLoaderReadyFetchMs - 0.1), &workers);
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->severity, FindingSeverity::kModerate);  // 30% would be high
  EXPECT_NE(ready->fix.summary.find("More workers will not shorten it"), std::string::npos);
  EXPECT_EQ(ready->fix.pytorch.find("num_workers=2 *"), std::string::npos);
  auto behind = Eval(rules::InputBound, loader(kLoaderReadyFetchMs + 0.1), &workers);
  ASSERT_TRUE(behind);
  EXPECT_EQ(behind->severity, FindingSeverity::kHigh);
  EXPECT_NE(behind->fix.summary.find("still cannot keep up"), std::string::npos);
  // Without workers the fetch length says nothing about them.
  auto single = Eval(rules::InputBound, loader(kLoaderReadyFetchMs - 0.1));
  ASSERT_TRUE(single);
  EXPECT_EQ(single->severity, FindingSeverity::kHigh);
}

// CPU-only compute-bound: the levers offered are those the trace does not show in use.
TEST(RuleComputeBound, CpuAdviceFollowsWhatIsInUse) {
  StepSignals s = Steps({100, 100, 100, 100, 100});
  s.cpu_only = true;
  s.category_ms[int(StepCategory::kDeviceCompute)] = 95;
  auto plain = Eval(rules::ComputeBound, s);
  ASSERT_TRUE(plain);
  EXPECT_NE(plain->fix.pytorch.find("torch.compile("), std::string::npos);
  EXPECT_NE(plain->fix.pytorch.find("torch.autocast("), std::string::npos);
  AppliedOptimizations done;
  done.torchscript = true;
  done.autocast_ops = 3;
  auto f = Eval(rules::ComputeBound, s, &done);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->fix.pytorch.find("torch.compile("), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.pytorch.find("torch.autocast("), std::string::npos) << f->fix.pytorch;
  ASSERT_NE(EvidenceOf(*f, "already in use"), nullptr);
}

}  // namespace
}  // namespace stepdoctor
