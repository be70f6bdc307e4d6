// The tune report in every format: the table's figures as measured, and with --profile the
// baseline's diagnosis after it (the JSON report nested whole, the notes of what it lacks).
#include "stepdoctor/render/tune_render.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "render/sample_report.h"

namespace stepdoctor {
namespace {

TuneReport Sample(bool profile, bool diagnosed) {
  TuneReport r;
  r.command = {"python3", "train.py"};
  r.metric = "median of the value 'rate' captures";
  r.unit = "steps/s";
  r.repeats = 3;
  r.budget_s = 90;
  r.used_s = 15;
  r.runs_done = 8;
  r.baseline = {13.32, 12.92, 13.72, {13.31, 13.36, 13.32}};
  TuneTrial t;
  t.knob = "NUM_WORKERS";
  t.value = "2";
  t.setting = "NUM_WORKERS=2";
  t.verdict = TuneVerdict::kKept;
  t.measured = true;
  t.m = {23.16, 22.47, 23.85, {22.14, 24.17}};
  t.change_pct = 73.8;
  r.trials.push_back(t);
  r.profile.asked = profile;
  r.profile.run = 1;
  r.profile.interval_s = 0.25;
  r.profile.inputs = {"/tmp/x/profile-run-1.jsonl", "/tmp/x/run-1/train.pt.trace.json"};
  if (diagnosed) r.profile.diagnosis = testing::SampleReport();
  else r.profile.note = "its inputs could not be diagnosed (the error is above)";
  return r;
}

TEST(TuneRender, TheDiagnosisFollowsTheTableInEveryFormat) {
  const TuneReport r = Sample(true, true);
  const std::string verdict = "input-bound: 31.2% of each 150 ms step waits on the DataLoader";
  const std::string text = RenderTuneText(r);
  const size_t table = text.find("NUM_WORKERS=2"), diag = text.find("Diagnosis of run 1 (the baseline), sampled every "
                                                                    "0.25 s, with 1 trace file it wrote:");
  ASSERT_NE(table, std::string::npos);
  ASSERT_NE(diag, std::string::npos) << text;
  EXPECT_LT(table, diag);
  EXPECT_NE(text.find(verdict, diag), std::string::npos);
  EXPECT_NE(RenderTuneMarkdown(r).find("### Diagnosis of run 1"), std::string::npos);
  const std::string html = RenderTuneHtml(r);
  EXPECT_NE(html.find("<section id=\"profile\">"), std::string::npos);
  EXPECT_NE(html.find(verdict, html.find("<section id=\"profile\">")), std::string::npos);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = RenderTuneJson(r);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(doc["profile"]["run"].get_int64().value(), 1);
  EXPECT_EQ(doc["profile"]["inputs"].get_array().size(), 2u);
  EXPECT_EQ(std::string(doc["profile"]["diagnosis"]["verdict"]["summary"].get_string().value()), verdict);
  EXPECT_EQ(doc["profile"]["diagnosis"]["steps"]["count"].get_int64().value(), 6);
}

TEST(TuneRender, AMissingDiagnosisSaysWhyAndNoProfileSaysNothing) {
  const TuneReport failed = Sample(true, false);
  EXPECT_NE(RenderTuneText(failed).find("note: its inputs could not be diagnosed"), std::string::npos);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string json = RenderTuneJson(failed);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_TRUE(doc["profile"]["diagnosis"].is_null());

  const TuneReport plain = Sample(false, false);
  EXPECT_EQ(RenderTuneText(plain).find("Diagnosis"), std::string::npos);
  EXPECT_EQ(RenderTuneHtml(plain).find("id=\"profile\""), std::string::npos);
  json = RenderTuneJson(plain);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_TRUE(doc["profile"].is_null());
}

}  // namespace
}  // namespace stepdoctor
