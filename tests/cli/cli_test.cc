// The stepdoctor command end to end: exit codes, one-line errors, partial results.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::RunCli;
using testing::SourcePath;

std::string TempFile(const std::string& name, const std::string& bytes) {
  std::string p = ::testing::TempDir() + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

TEST(Cli, DiagnoseBundledExample) {
  auto r = RunCli("diagnose " + SourcePath("examples/dataloader_input_bound.pt.trace.json.gz"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("input-bound: ", 0), 0u) << "verdict on the first line:\n" << r.out;
  EXPECT_NE(r.out.find("num_workers"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colour when not a TTY";
}

TEST(Cli, JsonReportHasTheDocumentedFields) {
  auto r = RunCli("diagnose --format json " + SourcePath("examples/dataloader_input_bound.pt.trace.json.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  EXPECT_EQ(int64_t(doc["schema_version"]), 4);
  EXPECT_EQ(std::string_view(doc["coverage"]["framework"]), "pytorch");
  EXPECT_EQ(std::string_view(doc["coverage"]["device_activity"]), "cpu_only");
  EXPECT_EQ(std::string_view(doc["coverage"]["steps"]), "markers");
  EXPECT_EQ(std::string_view(doc["verdict"]["bottleneck"]), "input");
  EXPECT_FALSE(std::string_view(doc["verdict"]["summary"]).empty());
  EXPECT_EQ(int64_t(doc["steps"]["count"]), 6);
  for (const char* k : {"median_ms", "p90_ms", "max_ms"}) EXPECT_GT(double(doc["steps"][k]), 0) << k;
  EXPECT_GT(double(doc["breakdown"]["input"]), 40.0);
  simdjson::dom::array findings = doc["findings"];
  ASSERT_GT(findings.size(), 0u);
  auto f0 = findings.at(0);
  for (const char* k : {"id", "severity", "share_pct", "gain_upper_bound", "predicted_step_ms", "evidence", "fix"})
    EXPECT_EQ(f0[k].error(), simdjson::SUCCESS) << k;
  // input_bound on a CPU-only trace with no core count: the replay still predicts the hidden input
  // (enough workers and cores assumed, and said).
  EXPECT_EQ(std::string_view(f0["id"]), "input_bound");
  EXPECT_GT(double(f0["predicted_step_ms"]), 0);
  EXPECT_LT(double(f0["predicted_step_ms"]), double(doc["steps"]["mean_ms"]));
  EXPECT_LE(double(f0["predicted_low_ms"]), double(f0["predicted_step_ms"]));
  EXPECT_GE(double(f0["predicted_high_ms"]), double(f0["predicted_step_ms"]));
  EXPECT_GT(simdjson::dom::array(f0["assumptions"]).size(), 0u);
  EXPECT_EQ(doc["devices"].error(), simdjson::SUCCESS);
  EXPECT_EQ(doc["diagnostics"].error(), simdjson::SUCCESS);
}

TEST(Cli, MissingFileIsExit2WithOneLine) {
  auto r = RunCli("diagnose /nonexistent/trace.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/trace.json"), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, GarbageFileIsExit2NamingTheFile) {
  std::string p = TempFile("garbage.json", std::string("\x00\x01\x02garbage\xff\xfe", 12));
  auto r = RunCli("diagnose " + p);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("garbage.json"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, TruncatedTraceGivesAPartialReportThatSaysSo) {
  std::string json = testing::ReadFileOrDie(SourcePath("examples/dataloader_in_memory.pt.trace.json.gz"));
  std::string cut = TempFile("cut.json.gz", json.substr(0, json.size() * 2 / 3));
  auto r = RunCli("diagnose " + cut);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
}

TEST(Cli, BadFormatFlagIsExit2) {
  auto r = RunCli("diagnose --format pdf " + SourcePath("examples/dataloader_in_memory.pt.trace.json.gz"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos);
}

TEST(Cli, NoArgumentsIsExit2) {
  EXPECT_EQ(RunCli("").exit_code, 2);
  EXPECT_EQ(RunCli("diagnose").exit_code, 2);
}

TEST(Cli, CorpusTruncatedCopyOfALargeTrace) {
  SD_CORPUS_OR_SKIP(path, "hta-testdata/nccl_parser_config/nccl_data.json.gz");
  std::string gz = testing::ReadFileOrDie(path);
  std::string cut = TempFile("nccl_cut.json.gz", gz.substr(0, gz.size() / 2));
  auto r = RunCli("diagnose --format json " + cut);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor

namespace stepdoctor {
namespace {

// Files of a folder are read on several threads and merged in order: the report must not
// depend on the thread count.
TEST(Cli, SameReportWhateverTheThreadCount) {
  auto one = testing::RunCli("diagnose --format json examples", "STEPDOCTOR_THREADS=1");
  auto four = testing::RunCli("diagnose --format json examples", "STEPDOCTOR_THREADS=4");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(four.exit_code, 0) << four.err;
  EXPECT_EQ(one.out, four.out);
  EXPECT_NE(one.out.find("\"workers\""), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
