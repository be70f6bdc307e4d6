// stepdoctor diagnose TRACE --data DIR, end to end: a many-small-files dataset in a temp folder,
// an inline input-bound trace, the real storage probe. Which limit it finds depends on the
// machine's storage, so only that one was named (with its figures) is asserted.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "inline_chrome.h"
#include "test_util.h"
#include "tfrecord/temp_dir.h"

namespace stepdoctor {
namespace {

class DiagnoseData : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 500; ++i)
      dir_.Write("images/class" + std::to_string(i % 5) + "/" + std::to_string(i) + ".jpg", std::string(4096, 'x'));
    std::ofstream(dir_ / "input.json") << testing::DataLoaderLoop(6, 40, 60);
    std::ofstream(dir_ / "compute.json") << testing::DataLoaderLoop(6, 0, 100);
  }
  testing::CliResult Diagnose(const std::string& args) {
    return testing::RunCli("diagnose " + args + " --data-duration 0.5s -f json");
  }
  testing::TempDir dir_{"diagnose_data"};
};

TEST_F(DiagnoseData, AnInputBoundTraceNamesTheLimitWithTheProbedFigures) {
  auto r = Diagnose(dir_ / "input.json" + " --data " + dir_ / "images" + " --samples-per-step 32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  ASSERT_EQ(parser.parse(r.out).get(j), simdjson::SUCCESS) << r.out;
  std::string limit, storage;
  for (auto f : j["findings"].get_array())
    if (std::string_view(f["id"]) == "input_bound")
      for (auto e : f["evidence"].get_array()) {
        std::string label{std::string_view(e["label"])}, value{std::string_view(e["value"])};
        if (label == "input limit") limit = value;
        if (label.rfind("storage under ", 0) == 0) storage = value;
      }
  EXPECT_TRUE(limit.rfind("storage: ", 0) == 0 || limit.rfind("CPU ", 0) == 0) << limit;
  EXPECT_NE(storage.find("files/s"), std::string::npos) << storage;
  EXPECT_NE(storage.find("(500 files, mean 4.1 KB)"), std::string::npos) << storage;
  bool probed = false;
  for (auto n : j["notes"].get_array()) probed |= std::string_view(n).find("storage probed for") != std::string_view::npos;
  EXPECT_TRUE(probed) << r.out;
}

// `run --data`: the job writes its trace into a logdir; after it exits the samples and the trace
// are diagnosed, and the input-bound finding gets the probe's verdict, in words and as figures.
TEST_F(DiagnoseData, RunWithDataProbesTheStorageAfterTheJob) {
  const std::string logdir = dir_ / "prof";
  auto r = testing::RunCli("run --no-gpu --interval 100ms --out " + dir_ / "samples.jsonl" + " --logdir " + logdir +
                           " --data " + dir_ / "images" + " --samples-per-step 32 --data-duration 0.5s -f json -- sh -c "
                           "'mkdir -p " + logdir + " && cp " + dir_ / "input.json" + " " + logdir + "/ && sleep 0.3'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  ASSERT_EQ(parser.parse(r.out).get(j), simdjson::SUCCESS) << r.out;
  std::string limit;
  double storage_limited = -1, headroom = 0;
  for (auto f : j["findings"].get_array()) {
    if (std::string_view(f["id"]) != "input_bound") continue;
    for (auto e : f["evidence"].get_array())
      if (std::string_view(e["label"]) == "input limit") limit = std::string(std::string_view(e["value"]));
    storage_limited = f["figures"]["storage_limited"].get_double().value_unsafe();
    headroom = f["figures"]["storage_headroom"].get_double().value_unsafe();
  }
  EXPECT_TRUE(limit.rfind("storage: ", 0) == 0 || limit.rfind("CPU ", 0) == 0) << r.out;
  EXPECT_EQ(storage_limited, limit.rfind("storage: ", 0) == 0 ? 1 : 0);
  EXPECT_GT(headroom, 0);

  // A --data that is no folder is refused before the job starts.
  auto bad = testing::RunCli("run --no-gpu --out " + dir_ / "s2.jsonl" + " --data " + dir_ / "nope" +
                             " -- sh -c 'touch " + dir_ / "ran" + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(std::ifstream(dir_ / "ran").good()) << "the job ran with an unusable --data";
}

TEST_F(DiagnoseData, NotInputBoundSkipsTheProbeAndSaysWhy) {
  auto r = Diagnose(dir_ / "compute.json" + " --data " + dir_ / "images");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("storage probe skipped: the steps are not input-bound"), std::string::npos) << r.out;
}

TEST_F(DiagnoseData, BadArgumentsAreOneLineErrors) {
  auto missing = Diagnose(dir_ / "input.json" + " --data " + dir_ / "nope");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "stepdoctor: --data " + dir_ / "nope" + ": no such file or folder\n");
  auto alone = Diagnose(dir_ / "input.json" + " --samples-per-step 32");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("need --data DIR"), std::string::npos) << alone.err;
  std::ofstream(dir_ / "empty.bin");  // a folder holding no non-empty file cannot be probed
  auto empty = Diagnose(dir_ / "input.json" + " --data " + dir_ / "empty.bin" + " --samples-per-step 32");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty.bin"), std::string::npos) << empty.err;
}

}  // namespace
}  // namespace stepdoctor
