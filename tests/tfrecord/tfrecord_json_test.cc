// tfrecord verify|inspect --format json: the documented keys, the damage at the offsets the
// library finds, and the exit statuses of the text output.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "stepdoctor/tfrecord/tfrecord_pack.h"
#include "stepdoctor/tfrecord/tfrecord_verify.h"
#include "temp_dir.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

class TfRecordJson : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 40; ++i) dir_.Write("in/c" + std::to_string(i % 2) + "/f" + std::to_string(i), std::string(300 + i, 'a'));
    tfrecord::PackOptions o;
    o.input_dir = dir_ / "in";
    o.output_dir = dir_ / "out";
    o.shards = 2;
    o.seed = 3;
    auto r = tfrecord::PackFolder(o);
    ASSERT_TRUE(r.ok()) << r.message();
    shard_ = dir_ / ("out/" + r->shards[0].file);
  }
  simdjson::dom::element Parse(const std::string& text) {
    simdjson::dom::element j;
    EXPECT_EQ(parser_.parse(text).get(j), simdjson::SUCCESS) << text;
    return j;
  }
  testing::TempDir dir_{"tfrecord_json"};
  std::string shard_;
  simdjson::dom::parser parser_;
};

TEST_F(TfRecordJson, VerifyListsEveryFileAndTheDamageOffsets) {
  auto ok = testing::RunCli("tfrecord verify " + (dir_ / "out") + " -f json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto j = Parse(ok.out);
  EXPECT_EQ(int64_t(j["records"]), 40);
  EXPECT_EQ(int64_t(j["bad_files"]), 0);
  EXPECT_EQ(int64_t(j["passed_over"]), 1);  // manifest.json
  EXPECT_EQ(j["files"].get_array().size(), 2u);
  for (const char* key : {"path", "ok", "error", "compression", "records", "bytes", "skipped_bytes", "problems"})
    EXPECT_EQ(j["files"].at(0)[key].error(), simdjson::SUCCESS) << key;

  {  // one byte of the third record's data flipped
    std::fstream f(shard_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3 * 330);
    f.put('!');
  }
  auto expected = tfrecord::VerifyFile(shard_);
  ASSERT_FALSE(expected.problems.empty());
  auto bad = testing::RunCli("tfrecord verify " + shard_ + " -f json");
  EXPECT_EQ(bad.exit_code, 1);
  auto b = Parse(bad.out);
  EXPECT_EQ(int64_t(b["bad_files"]), 1);
  auto problems = b["files"].at(0)["problems"];
  ASSERT_EQ(problems.get_array().size(), expected.problems.size());
  EXPECT_EQ(uint64_t(int64_t(problems.at(0)["offset"])), expected.problems[0].offset);
  EXPECT_EQ(std::string_view(problems.at(0)["problem"]), tfrecord::ProblemName(expected.problems[0].problem));

  auto missing = testing::RunCli("tfrecord verify " + (dir_ / "nope.tfrecord") + " -f json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.tfrecord"), std::string::npos);
  EXPECT_EQ(testing::RunCli("tfrecord verify " + shard_ + " -f xml").exit_code, 2);
}

TEST_F(TfRecordJson, InspectGivesTheSchemaAndSizes) {
  auto r = testing::RunCli("tfrecord inspect " + (dir_ / "out") + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Parse(r.out);
  EXPECT_EQ(int64_t(j["records"]), 40);
  EXPECT_EQ(int64_t(j["examples"]), 40);
  EXPECT_EQ(int64_t(j["decoded"]), 40);
  EXPECT_EQ(int64_t(j["not_examples"]), 0);
  EXPECT_EQ(j["size_histogram"].get_array().size(), 1u);  // every record is 256-511 bytes
  EXPECT_EQ(int64_t(j["size_histogram"].at(0)["min_bytes"]), 256);
  auto schema = j["schema"];
  ASSERT_EQ(schema.get_array().size(), 3u);
  EXPECT_EQ(std::string_view(schema.at(0)["feature"]), "data");
  EXPECT_EQ(std::string_view(schema.at(0)["type"]), "bytes");
  EXPECT_EQ(int64_t(schema.at(0)["min_bytes"]), 300);
  EXPECT_EQ(int64_t(schema.at(0)["max_bytes"]), 339);
  EXPECT_EQ(std::string_view(schema.at(1)["type"]), "int64");
  EXPECT_TRUE(schema.at(1)["min_bytes"].is_null());
}

}  // namespace
}  // namespace stepdoctor
