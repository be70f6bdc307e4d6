// compute_bound where copies between host and device hold much of the step with no compute
// beside them (a TF1 graph swapping tensors out and back, pageable batches): the title, the gain
// and the advice say so instead of "no idle time to recover" and "try a larger batch"; with few
// such copies the finding is as before.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor {
namespace {

StepSignals Step(double copies_ms) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = 3;
  s.mean_step_ms = s.median_step_ms = 100;
  s.step_ms = {100, 100, 100};
  s.category_ms[int(StepCategory::kDeviceCompute)] = 100 - copies_ms;
  s.category_ms[int(StepCategory::kMemcpy)] = copies_ms;
  s.memcpy_h2d_ms = copies_ms / 2;
  s.memcpy_d2h_ms = copies_ms / 2;
  s.device_span_busy_pct = 99.8;
  s.kernels_per_step = 50;
  return s;
}

TEST(ExposedCopies, CopiesBesideNoComputeAreNamedBothSides) {
  const StepSignals swapped = Step(38), few = Step(4);
  Signals sig;
  sig.steps = &swapped;
  auto f = rules::ComputeBound(sig);
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("copies between host and device hold another 38.0%"), std::string::npos) << f->title;
  EXPECT_NEAR(f->gain_upper_bound, 1 / 0.62, 0.01);
  EXPECT_EQ(f->gain_text.find("no idle time"), std::string::npos) << f->gain_text;
  EXPECT_EQ(f->fix.summary.find("larger batch"), std::string::npos) << f->fix.summary;
  EXPECT_NE(f->fix.pytorch.find("non_blocking=True"), std::string::npos);
  sig.steps = &few;
  auto g = rules::ComputeBound(sig);
  ASSERT_TRUE(g);
  EXPECT_NE(g->gain_text.find("no idle time"), std::string::npos) << g->gain_text;
  EXPECT_EQ(g->title.find("copies"), std::string::npos) << g->title;
}

}  // namespace
}  // namespace stepdoctor
