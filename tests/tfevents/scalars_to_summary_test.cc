// ScalarsToSummary (`stepdoctor scalars`): trends on both sides of the flat threshold, step
// rates, stalls, and the three renderers over inline event files; the katib corpus files.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <stdlib.h>

#include "stepdoctor/analysis/scalars_to_summary.h"
#include "stepdoctor/analysis/tf_event_stalls.h"
#include "stepdoctor/render/scalars_render.h"
#include "test_util.h"
#include "tfevents/event_file_writer.h"

namespace stepdoctor {
namespace {

// A fresh folder under the test temp dir.
std::string TempLogdir() {
  std::string tmpl = ::testing::TempDir() + "sd_scalars_XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return tmpl;
}

ScalarsSummary SummaryOf(const std::vector<std::string>& paths) {
  auto r = ImportPaths(paths);
  EXPECT_TRUE(r.ok()) << r.message();
  if (!r.ok()) return {};
  return ScalarsToSummary(*r);
}

const ScalarTagSummary* Find(const ScalarsSummary& s, const std::string& run, const std::string& tag) {
  for (const auto& g : s.tags)
    if (g.run == run && g.tag == tag) return &g;
  return nullptr;
}

// value = 100 + slope * step over steps 0..9: the last half (steps 5..9) changes by
// 4 * slope / (100 + 7 * slope) of its mean.
ScalarTrend TrendOfLine(double slope, std::optional<double>* pct) {
  ScalarSeries s;
  for (int step = 0; step < 10; ++step) {
    s.step.push_back(step);
    s.wall_time_s.push_back(step);
    s.value.push_back(100 + slope * step);
  }
  ScalarTrend t;
  ScalarSeriesTrend(s, &t, pct);
  return t;
}

TEST(ScalarsToSummary, TrendOnBothSidesOfTheFlatThreshold) {
  std::optional<double> pct;
  EXPECT_EQ(TrendOfLine(0.55, &pct), ScalarTrend::kRising);  // +2.12%
  EXPECT_NEAR(*pct, 2.12, 0.01);
  EXPECT_EQ(TrendOfLine(0.45, &pct), ScalarTrend::kFlat);  // +1.74%
  EXPECT_EQ(TrendOfLine(-0.45, &pct), ScalarTrend::kFlat);  // -1.86%
  EXPECT_EQ(TrendOfLine(-0.55, &pct), ScalarTrend::kFalling);  // -2.29%
  EXPECT_LT(*pct, -kTrendFlatPct);
}

TEST(ScalarsToSummary, TooFewPointsHaveNoTrend) {
  ScalarSeries s;
  for (int step = 0; step < 3; ++step) {
    s.step.push_back(step);
    s.wall_time_s.push_back(step);
    s.value.push_back(step);
  }
  ScalarTrend t;
  std::optional<double> pct;
  ScalarSeriesTrend(s, &t, &pct);
  EXPECT_EQ(t, ScalarTrend::kTooFewPoints);
  EXPECT_FALSE(pct);
}

TEST(ScalarsToSummary, InlineLogdirFiguresAndStalls) {
  std::string dir = TempLogdir();
  testing::WriteTrainingLogdir(dir);
  ScalarsSummary s = SummaryOf({dir});
  ASSERT_EQ(s.tags.size(), 3u);
  // Sorted by run, then tag.
  EXPECT_EQ(s.tags[0].run + "/" + s.tags[0].tag, "train/accuracy");
  EXPECT_EQ(s.tags[1].run + "/" + s.tags[1].tag, "train/loss");
  EXPECT_EQ(s.tags[2].run + "/" + s.tags[2].tag, "validation/loss");

  const ScalarTagSummary* loss = Find(s, "train", "loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->count, 20);
  EXPECT_EQ(loss->first_step, 0);
  EXPECT_EQ(loss->last_step, 19);
  EXPECT_NEAR(loss->last_value, 2.0 * std::pow(0.9, 19), 1e-6);
  EXPECT_DOUBLE_EQ(loss->min_value, loss->last_value);  // it only falls
  EXPECT_NEAR(loss->max_value, 2.0, 1e-6);
  EXPECT_EQ(loss->trend, ScalarTrend::kFalling);
  // 19 steps in 19 * 0.5 s + 3 pauses of 10 s.
  ASSERT_TRUE(loss->steps_per_second);
  EXPECT_NEAR(*loss->steps_per_second, 19 / 39.5, 1e-3);

  const ScalarTagSummary* acc = Find(s, "train", "accuracy");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->trend, ScalarTrend::kRising);
  // Slope 0.02 over 9 steps, mean 0.79 over steps 10..19: +22.8%.
  EXPECT_NEAR(*acc->trend_change_pct, 100 * 0.18 / 0.79, 0.1);

  const ScalarTagSummary* val = Find(s, "validation", "loss");
  ASSERT_NE(val, nullptr);
  EXPECT_EQ(val->trend, ScalarTrend::kTooFewPoints);
  EXPECT_NEAR(*val->steps_per_second, 0.5, 1e-6);

  // Only train has enough logged intervals for a typical step time.
  ASSERT_EQ(s.runs.size(), 1u);
  const ScalarRunStalls& run = s.runs[0];
  EXPECT_EQ(run.run, "train");
  EXPECT_NEAR(run.seconds_per_step, 0.5, 1e-6);
  ASSERT_EQ(run.stalls.size(), 3u);
  EXPECT_EQ(run.stalls[0].step, 5);
  EXPECT_NEAR(run.stalls[0].gap_s, 10.5, 1e-6);
  EXPECT_NEAR(run.lost_s, 30, 1e-6);
  EXPECT_EQ(run.period_steps, 5);
  EXPECT_NEAR(run.stall_share_pct, 100 * 30 / 39.5, 0.01);
  EXPECT_TRUE(s.notes.empty());
}

TEST(ScalarsToSummary, DamagedRecordIsANoteAndTheRestIsRead) {
  std::string dir = TempLogdir();
  testing::EventFileWriter w;
  w.Scalar("loss", 1, 1.7e9, 1.0f).Raw(std::string(20, '\x7f')).Scalar("loss", 2, 1.7e9 + 1, 0.5f);
  testing::WriteEventFile(dir, "train", w.bytes());
  ScalarsSummary s = SummaryOf({dir});
  ASSERT_EQ(s.tags.size(), 1u);
  EXPECT_GE(s.tags[0].count, 1);
  ASSERT_FALSE(s.notes.empty());
  std::string text = RenderScalarsText(s, {});
  EXPECT_NE(text.find("\nnote: "), std::string::npos) << text;
}

TEST(ScalarsRender, EachFormatPrintsTheSummary) {
  std::string dir = TempLogdir();
  testing::WriteTrainingLogdir(dir);
  ScalarsSummary s = SummaryOf({dir});

  std::string text = RenderScalarsText(s, {});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "run              tag                           count    first     last   last value          min trend  "
            "         steps/s");
  EXPECT_NE(text.find("train            loss                             20        0       19       0.2702       "
                      "0.2702 falling"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rising +23%"), std::string::npos) << text;
  EXPECT_NE(text.find("validation       loss                              2        0       10       0.8000       "
                      "0.8000 -                   0.5"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nrun train: 3 stalls (gaps >= 3x the median 0.500 s per step), 30.0 s lost (75.9% of 40 s), "
                      "every 5 steps: checkpoint or evaluation cost\n  before step 5: 10.5 s gap\n"),
            std::string::npos)
      << text;

  std::string json = RenderScalarsJson(s, {});
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(int64_t(doc["schema_version"]), kScalarsSchemaVersion);
  simdjson::dom::array tags = doc["tags"];
  ASSERT_EQ(tags.size(), 3u);
  auto loss = tags.at(1);
  EXPECT_EQ(std::string_view(loss["run"]), "train");
  EXPECT_EQ(std::string_view(loss["tag"]), "loss");
  EXPECT_EQ(int64_t(loss["count"]), 20);
  EXPECT_EQ(std::string_view(loss["trend"]), "falling");
  EXPECT_NEAR(double(loss["last_value"]), 2.0 * std::pow(0.9, 19), 1e-6);
  EXPECT_LT(double(loss["trend_change_pct"]), 0);
  EXPECT_TRUE(tags.at(2)["trend_change_pct"].is_null()) << "too few points: no change";
  EXPECT_EQ(std::string_view(tags.at(2)["trend"]), "too_few_points");
  simdjson::dom::array runs = doc["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(int64_t(runs.at(0)["period_steps"]), 5);
  EXPECT_EQ(simdjson::dom::array(runs.at(0)["stalls"]).size(), 3u);
  EXPECT_EQ(double(doc["stall_factor"]), kStallFactor);
  EXPECT_EQ(simdjson::dom::array(doc["inputs"]).size(), 2u);

  std::string md = RenderScalarsMarkdown(s, {});
  EXPECT_EQ(md.rfind("## stepdoctor scalars\n", 0), 0u) << md;
  EXPECT_NE(md.find("| Run | Tag | Count |"), std::string::npos) << md;
  EXPECT_NE(md.find("| train | `loss` | 20 | 0 | 19 | 0.2702 | 0.2702 | falling"), std::string::npos) << md;
  EXPECT_NE(md.find("### Stalls"), std::string::npos) << md;
  EXPECT_NE(md.find("- before step 15: 10.5 s gap"), std::string::npos) << md;
}

TEST(ScalarsRender, NoScalarsSaysHowManyFilesWereRead) {
  ScalarsSummary s;
  s.inputs = {"a", "b"};
  EXPECT_EQ(RenderScalarsText(s, {}), "no scalars found in the event files read (2 files)\n");
  EXPECT_NE(RenderScalarsMarkdown(s, {}).find("No scalars found"), std::string::npos);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(RenderScalarsJson(s, {})).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(simdjson::dom::array(doc["tags"]).size(), 0u);
}

TEST(ScalarsRender, TheFormatTable) {
  for (const auto& name : ScalarsRendererNames()) EXPECT_NE(FindScalarsRenderer(name), nullptr) << name;
  EXPECT_EQ(ScalarsRendererNames(), (std::vector<std::string>{"text", "json", "md"}));
  EXPECT_EQ(FindScalarsRenderer("html"), nullptr);
}

// Katib's TF2 MNIST run: train and test splits, loss and accuracy at steps 0-9. Training loss
// ends at its lowest; accuracy ends above 0.9 on both splits.
TEST(ScalarsToSummary, CorpusKatibTrainAndTest) {
  SD_CORPUS_OR_SKIP(train, "katib-tfevents/logs/train/events.out.tfevents.1637681485.2d662933d616.19.0.v2");
  std::string logs = train.substr(0, train.rfind("/train/"));
  ScalarsSummary s = SummaryOf({logs});
  ASSERT_EQ(s.tags.size(), 4u);
  for (const auto& g : s.tags) {
    SCOPED_TRACE(g.run + "/" + g.tag);
    EXPECT_TRUE(g.run == "train" || g.run == "test");
    EXPECT_EQ(g.count, 10);
    EXPECT_EQ(g.first_step, 0);
    EXPECT_EQ(g.last_step, 9);
    ASSERT_TRUE(g.steps_per_second);
    EXPECT_GT(*g.steps_per_second, 0);
    if (g.tag == "accuracy") {
      EXPECT_GT(g.last_value, 0.9);
    }
  }
  const ScalarTagSummary* loss = Find(s, "train", "loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_DOUBLE_EQ(loss->last_value, loss->min_value);
  EXPECT_EQ(loss->trend, ScalarTrend::kFalling);
  EXPECT_TRUE(s.notes.empty());
}

}  // namespace
}  // namespace stepdoctor
