// io-bench's Markdown and HTML reports, and the job's rate taken from a trace.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "../tfrecord/temp_dir.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

class IoBenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 100; ++i) dir_.Write("d/f" + std::to_string(i), std::string(1000, 'x'));
    // 100 ms steps waiting 40 ms on input: steps without the wait read 32 samples in 60 ms.
    std::ofstream(dir_ / "loop.json") << testing::DataLoaderLoop(6, 40, 60);
  }
  testing::CliResult Bench(const std::string& args) {
    return testing::RunCli("io-bench " + (dir_ / "d") + " --threads 1 --duration 0.3s " + args);
  }
  testing::TempDir dir_{"iobench_cli_formats"};
};

TEST_F(IoBenchCli, MarkdownAndHtmlCarryTheTableAndFindings) {
  auto md = Bench("--samples-per-sec 100 -f md");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("## stepdoctor io-bench `", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| `small_files` | 1 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("**Job needs:** 100 samples/s x 1.0 KB = 0.1 MB/s (--samples-per-sec)"), std::string::npos);
  EXPECT_NE(md.out.find("### Findings\n\n- "), std::string::npos);
  auto html = Bench("-f html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u) << html.out.substr(0, 80);
  EXPECT_NE(html.out.find("<td>small_files</td><td>1</td><td>100</td>"), std::string::npos);
  EXPECT_NE(html.out.find("</html>"), std::string::npos);
  EXPECT_EQ(Bench("-f xml").exit_code, 2);
}

TEST_F(IoBenchCli, TheJobsRateFromATrace) {
  auto r = Bench("--trace " + (dir_ / "loop.json") + " --samples-per-step 32 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  ASSERT_EQ(parser.parse(r.out).get(j), simdjson::SUCCESS) << r.out;
  EXPECT_NEAR(double(j["need"]["samples_per_s"]), 32 / 0.060, 0.1);
  EXPECT_NEAR(double(j["need"]["mb_per_s"]), 32 / 0.060 * 1000 / 1e6, 0.1);
  std::string source{std::string_view(j["need"]["source"])};
  EXPECT_EQ(source, "--trace: 6 steps of 100.0 ms, 32 samples a step; 533 samples/s for steps without input wait");
  EXPECT_EQ(std::string_view(j["read_path"]), "small_files");

  auto no_batch = Bench("--trace " + (dir_ / "loop.json"));
  EXPECT_EQ(no_batch.exit_code, 2);
  EXPECT_NE(no_batch.err.find("give --samples-per-step"), std::string::npos) << no_batch.err;
  EXPECT_EQ(Bench("--trace " + (dir_ / "loop.json") + " --samples-per-sec 10").exit_code, 2);
  EXPECT_EQ(Bench("--samples-per-step 32").exit_code, 2);
  auto missing = Bench("--trace " + (dir_ / "nope.json") + " --samples-per-step 32");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace stepdoctor
