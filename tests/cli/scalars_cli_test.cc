// `stepdoctor scalars --format text|json|md` end to end: an inline logdir, the katib corpus.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli/cli_fixture.h"
#include "test_util.h"
#include "tfevents/event_file_writer.h"

namespace stepdoctor {
namespace {

using testing::RunIn;

std::string TrainingLogdirParent() {
  std::string dir = testing::FreshTempDir("sd_scalars_cli");
  testing::WriteTrainingLogdir(dir + "/logs");
  return dir;
}

TEST(ScalarsCli, EachFormat) {
  std::string dir = TrainingLogdirParent();
  auto text = RunIn(dir, "stepdoctor scalars logs");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("run              tag ", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("\nrun train: 3 stalls"), std::string::npos) << text.out;
  EXPECT_EQ(text.err, "");

  auto json = RunIn(dir, "stepdoctor scalars -f json logs");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  EXPECT_EQ(simdjson::dom::array(doc["tags"]).size(), 3u);
  EXPECT_EQ(std::string_view(doc["tags"].at(1)["trend"]), "falling");

  auto md = RunIn(dir, "stepdoctor scalars --format md logs");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("## stepdoctor scalars\n", 0), 0u) << md.out;

  auto file = RunIn(dir, "stepdoctor scalars -f json -o out.json logs && cat out.json");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.out, json.out);
}

TEST(ScalarsCli, UnknownFormatIsExit2NamingTheChoices) {
  auto r = testing::RunCli("scalars -f html examples");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "stepdoctor: --format html: unknown format (text|json|md)\n");
}

// The text table katib's event files gave before the figures moved into the library: the
// same bytes, so scripts reading it keep working.
TEST(ScalarsCli, CorpusKatibTextIsUnchanged) {
  SD_CORPUS_OR_SKIP(train, "katib-tfevents/logs/train/events.out.tfevents.1637681485.2d662933d616.19.0.v2");
  std::string logs = train.substr(0, train.rfind("/train/"));
  auto r = testing::RunCli("scalars " + logs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "run              tag                           count    first     last   last value          min trend  "
            "         steps/s\n"
            "test             accuracy                         10        0        9       0.9833       0.9763 flat   "
            "          0.0679\n"
            "test             loss                             10        0        9       0.0559       0.0543 flat   "
            "          0.0679\n"
            "train            accuracy                         10        0        9       0.9896       0.9404 flat   "
            "          0.0678\n"
            "train            loss                             10        0        9       0.0361       0.0361 falling "
            "-46%     0.0678\n");
  auto j = testing::RunCli("scalars -f json " + logs);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(j.out).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(simdjson::dom::array(doc["tags"]).size(), 4u);
  EXPECT_EQ(simdjson::dom::array(doc["inputs"]).size(), 2u);
}

}  // namespace
}  // namespace stepdoctor
