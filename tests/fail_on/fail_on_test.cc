// --fail-on: the expression grammar, its evaluation on both sides of each comparison, and the
// CLI's exit statuses (met -> 1 with the reason on the last stderr line, not met -> 0,
// malformed -> 2).
#include <gtest/gtest.h>

#include "stepdoctor/report/fail_on.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

const FailOnVocabulary kVocab{{"compute_bound", "host_bound", "input_bound", "step_time_outliers"},
                              {"input", "kernel_launch", "host_compute", "device_compute", "other"}};

Report InputBoundReport(FindingSeverity sev, double share) {
  Report r;
  r.verdict.bottleneck = Bottleneck::kInput;
  r.steps.count = 6;
  r.steps.median_ms = 152.3;
  r.breakdown = {{"input", 45.1, share}, {"device_compute", 100, 60}};
  Finding f;
  f.id = "input_bound";
  f.severity = sev;
  f.share_pct = share;
  f.gain_upper_bound = 1.45;
  r.findings.push_back(f);
  return r;
}

bool Met(const std::string& expr, const Report& r, const DiffReport* d = nullptr) {
  auto e = ParseFailOn(expr, kVocab);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return false;
  auto out = EvaluateFailOn(*e, r, d);
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() && out->met;
}

TEST(FailOnParse, AcceptsTheDocumentedForms) {
  for (const char* ok : {"input_bound", "input_bound>=moderate", "input_bound.severity = high", "input_bound<low",
                         "host_bound.share>30%", "host_bound.share>30", "input_bound.gain>=1.3x", "verdict=input",
                         "verdict!=device_compute", "verdict==host", "breakdown.input>30%", "breakdown.input>40ms",
                         "step_time>150ms", "step_time_regression>5%", "step_time_regression>=10ms", " input_bound "}) {
    auto e = ParseFailOn(ok, kVocab);
    EXPECT_TRUE(e.ok()) << ok << ": " << e.message();
  }
}

TEST(FailOnParse, RefusesMalformedWithOneLine) {
  for (const char* bad : {"", ">5%", "input_bond>=high", "input_bound>=severe", "input_bound>=", "verdict>input",
                          "verdict=fast", "host_bound.share>abc", "host_bound.share>30ms", "host_bound.width>3",
                          "step_time_regression>5", "step_time_regression", "breakdown.disk>3%", "Input_Bound",
                          "input_bound>=high>=low", "input_bound!high", "step_time>5%"}) {
    auto e = ParseFailOn(bad, kVocab);
    EXPECT_FALSE(e.ok()) << "accepted: " << bad;
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.message().find('\n'), std::string::npos);
    EXPECT_NE(e.message().find("--fail-on"), std::string::npos) << e.message();
  }
}

TEST(FailOnEvaluate, SeverityBothSidesOfTheThreshold) {
  Report high = InputBoundReport(FindingSeverity::kHigh, 31.2);
  Report low = InputBoundReport(FindingSeverity::kLow, 8);
  EXPECT_TRUE(Met("input_bound>=moderate", high));
  EXPECT_FALSE(Met("input_bound>=moderate", low));
  EXPECT_TRUE(Met("input_bound", low));
  EXPECT_FALSE(Met("host_bound", high));  // not reported
  EXPECT_TRUE(Met("host_bound<low", high));
  Report healthy = InputBoundReport(FindingSeverity::kNone, 0);
  EXPECT_FALSE(Met("input_bound", healthy));  // a healthy note is not "present"
  auto e = ParseFailOn("input_bound>=moderate", kVocab);
  auto out = EvaluateFailOn(*e, high);
  EXPECT_EQ(out->reason, "input_bound is high (31.2% of step time)");
}

TEST(FailOnEvaluate, SharesGainVerdictBreakdownStepTime) {
  Report r = InputBoundReport(FindingSeverity::kHigh, 31.2);
  EXPECT_TRUE(Met("input_bound.share>30%", r));
  EXPECT_FALSE(Met("input_bound.share>32%", r));
  EXPECT_FALSE(Met("host_bound.share>0%", r));
  EXPECT_TRUE(Met("input_bound.gain>1.4x", r));
  EXPECT_FALSE(Met("input_bound.gain>1.5x", r));
  EXPECT_TRUE(Met("verdict=input", r));
  EXPECT_FALSE(Met("verdict!=input", r));
  EXPECT_TRUE(Met("breakdown.input>45ms", r));
  EXPECT_FALSE(Met("breakdown.input>46ms", r));
  EXPECT_TRUE(Met("step_time>150ms", r));
  EXPECT_FALSE(Met("step_time>153", r));
}

TEST(FailOnEvaluate, StepTimeRegressionNeedsADiff) {
  Report r = InputBoundReport(FindingSeverity::kHigh, 31.2);
  auto e = ParseFailOn("step_time_regression>5%", kVocab);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(FailOnNeedsDiff(*e));
  EXPECT_FALSE(EvaluateFailOn(*e, r).ok());
  DiffReport d;
  d.before.median_step_ms = 100;
  d.after.median_step_ms = 106;
  d.step_delta_ms = 6;
  d.step_change_pct = 6;
  EXPECT_TRUE(Met("step_time_regression>5%", r, &d));
  EXPECT_FALSE(Met("step_time_regression>6.5%", r, &d));
  EXPECT_TRUE(Met("step_time_regression>5ms", r, &d));
  d.step_delta_ms = -20;
  d.step_change_pct = -20;
  EXPECT_FALSE(Met("step_time_regression>5%", r, &d));
}

// Through the CLI: the bundled example is input-bound (high), so each flag below is met or not.
TEST(FailOnCli, DiagnoseExitCodes) {
  std::string trace = testing::SourcePath("examples/dataloader_input_bound.pt.trace.json.gz");
  auto met = testing::RunCli("diagnose '" + trace + "' --fail-on 'input_bound>=moderate'");
  EXPECT_EQ(met.exit_code, 1) << met.err;
  ASSERT_FALSE(met.err.empty());
  std::string last = met.err.substr(met.err.find_last_of('\n', met.err.size() - 2) + 1);
  EXPECT_EQ(last.rfind("stepdoctor: --fail-on input_bound>=moderate met: input_bound is high (", 0), 0u) << met.err;
  EXPECT_NE(met.out.find("input-bound"), std::string::npos);  // the report is still written

  auto not_met = testing::RunCli("diagnose '" + trace + "' --fail-on verdict=host --fail-on 'host_bound.share>90%'");
  EXPECT_EQ(not_met.exit_code, 0) << not_met.err;
  EXPECT_EQ(not_met.err, "");

  auto either = testing::RunCli("diagnose '" + trace + "' --fail-on verdict=host --fail-on verdict=input");
  EXPECT_EQ(either.exit_code, 1) << either.err;

  for (const char* bad : {"input_bound>=severe", "no_such_finding", "step_time_regression>5%"}) {
    auto r = testing::RunCli("diagnose '" + trace + "' --fail-on '" + std::string(bad) + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_EQ(r.out, "") << bad;  // refused before any work
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(FailOnCli, DiffExitCodes) {
  SD_CORPUS_OR_SKIP(a, "kineto-tb-plugin-samples/resnet50_num_workers_0");
  SD_CORPUS_OR_SKIP(b, "kineto-tb-plugin-samples/resnet50_num_workers_4");
  // 0 -> 4 workers is faster: no regression; the reverse direction regresses by over 5%.
  auto faster = testing::RunCli("diff '" + a + "' '" + b + "' --fail-on 'step_time_regression>5%'");
  EXPECT_EQ(faster.exit_code, 0) << faster.err;
  auto slower = testing::RunCli("diff '" + b + "' '" + a + "' --fail-on 'step_time_regression>5%'");
  EXPECT_EQ(slower.exit_code, 1) << slower.err;
  EXPECT_NE(slower.err.find("stepdoctor: --fail-on step_time_regression>5% met: the median step went from "),
            std::string::npos)
      << slower.err;
  // Findings are judged on the after side.
  auto after_input = testing::RunCli("diff '" + b + "' '" + a + "' --fail-on input_bound");
  EXPECT_EQ(after_input.exit_code, 1) << after_input.err;
  auto malformed = testing::RunCli("diff '" + a + "' '" + b + "' --fail-on 'step_time_regression>5'");
  EXPECT_EQ(malformed.exit_code, 2) << malformed.err;
}

}  // namespace
}  // namespace stepdoctor
