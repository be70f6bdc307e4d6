// `stepdoctor tune` end to end on shell jobs: one-line errors with exit 2 for unusable
// arguments, the plan of --dry-run, and a real search whose JSON names the best setting.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>

#include "cli/cli_fixture.h"

namespace stepdoctor {
namespace {

using testing::RunCli;

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

void ExpectArgumentError(const std::string& args, const std::string& says) {
  SCOPED_TRACE(args);
  auto r = RunCli("tune " + args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(TuneCli, UnusableArgumentsAreOneLineAndExit2) {
  ExpectArgumentError("--metric a -- true", "nothing to tune");
  ExpectArgumentError("--knob A=1,2 -- true", "no throughput to measure");
  ExpectArgumentError("--knob A --metric a -- true", "--knob A: expected NAME=v1,v2,...");
  ExpectArgumentError("--knob A=1,2 --knob A=3,4 --metric a -- true", "--knob A: given twice");
  ExpectArgumentError("--knob A=1,2 --metric '(' -- true", "--metric '(': not a regular expression");
  ExpectArgumentError("--knob A=1,2 --metric a --budget 2s -- true", "--budget 2.0 s: too small");
  ExpectArgumentError("--knob A=1,2 --metric a --budget soon -- true", "--budget 'soon' is not a duration");
  ExpectArgumentError("--knob A=1,2 --metric a -f pdf -- true", "--format pdf: unknown format");
  ExpectArgumentError("--knob A=1,2 --metric a --warmup x -- true", "--warmup x:");
  ExpectArgumentError("--knob A=1,2 --metric a --repeats 1 -- true", "--repeats 1: between 2 and 50");
  ExpectArgumentError("--builtin jax --metric a -- true", "--builtin jax: unknown set");
  ExpectArgumentError("--knob A=1,2 --metric a --check-tolerance lots -- true", "--check-tolerance lots");
  // The command itself: a baseline that cannot run names it (-q: without the progress lines).
  ExpectArgumentError("-q --knob A=1,2 --metric a --budget 1m -- /nonexistent/train",
                      "the baseline's run 1 of 3 failed: exited with 127: stepdoctor: cannot run /nonexistent/train");
}

TEST(TuneCli, DryRunPrintsThePlanAndRunsNothing) {
  std::string dir = testing::FreshTempDir("sd_tune_dry");
  auto r = RunCli("tune --dry-run --budget 1m --metric 'rate ([0-9]+)' --knob A=1,2,3 -f json -- sh -c 'touch " + dir +
                  "/ran'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(access((dir + "/ran").c_str(), F_OK), 0) << "--dry-run ran the command";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_TRUE(doc["dry_run"].get_bool().value());
  EXPECT_EQ(doc["trials"].get_array().size(), 2u);
  EXPECT_EQ(std::string(doc["trials"].at(0)["verdict"].get_string().value()), "planned");
}

TEST(TuneCli, AShellJobsBestSettingIsFoundAndPrintedAsJson) {
  // The job prints a rate of $R per step: R=30 is three times the baseline's 10; R=0 crashes.
  const std::string job = "sh -c '[ \"$R\" = 0 ] && exit 4; for i in 1 2 3; do echo \"rate $R loss 1\"; done'";
  auto r = RunCli("tune -q --budget 60s --trial-time 2s --warmup 0 --metric 'rate ([0-9]+)' --check-metric 'loss ([0-9]+)' "
                  "--knob R=10,0,30 -f json -- " + job);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_DOUBLE_EQ(doc["baseline"]["throughput"].get_double().value(), 10.0);
  auto trials = doc["trials"].get_array().value();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(std::string(trials.at(0)["setting"].get_string().value()), "R=0");
  EXPECT_EQ(std::string(trials.at(0)["verdict"].get_string().value()), "failed");
  EXPECT_TRUE(trials.at(0)["throughput"].is_null());
  EXPECT_EQ(std::string(trials.at(1)["verdict"].get_string().value()), "kept");
  EXPECT_DOUBLE_EQ(trials.at(1)["throughput"].get_double().value(), 30.0);
  EXPECT_LT(trials.at(1)["low"].get_double().value(), 30.0);
  EXPECT_GT(trials.at(1)["high"].get_double().value(), 30.0);
  auto best = doc["best"];
  EXPECT_EQ(std::string(best["env"]["R"].get_string().value()), "30");
  EXPECT_EQ(best["argv"].get_array().size(), 3u);
  EXPECT_DOUBLE_EQ(best["throughput"].get_double().value(), 30.0);
  EXPECT_DOUBLE_EQ(best["speedup"].get_double().value(), 3.0);
  EXPECT_LE(doc["used_s"].get_double().value(), 60.0);
}

TEST(TuneCli, EveryFormatRendersTheSameSearch) {
  const std::string args = "tune -q --budget 60s --trial-time 2s --warmup 0 --metric 'rate ([0-9]+)' --knob R=10,30 ";
  const std::string job = " -- sh -c 'echo \"rate $R\"'";
  auto text = RunCli(args + job);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("R=30"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("use: env R=30 sh -c"), std::string::npos) << text.out;
  auto md = RunCli(args + "-f md" + job);
  EXPECT_NE(md.out.find("| `R=30` | baseline | 30 |"), std::string::npos) << md.out;
  auto html = RunCli(args + "-f html" + job);
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u) << html.out.substr(0, 100);
  EXPECT_NE(html.out.find("<code>R=30</code>"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
