// `tune --scratch` and `--profile`: each run works in a fresh copy of the scratch folder (named by
// {SCRATCH} and $STEPDOCTOR_SCRATCH, removed after it), and the baseline's first run alone is
// sampled, its samples and new trace files kept for the diagnosis until the runner is gone.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_fixture.h"
#include "stepdoctor/tune/process_trial_runner.h"
#include "stepdoctor/tune/tune_search.h"
#include "tune/fake_runner.h"

namespace stepdoctor::tune {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kSecond = 1'000'000'000;

MetricSpec Rate() {
  MetricSpec m;
  m.pattern = "rate ([0-9]+)";
  EXPECT_TRUE(ValidateMetric(&m).ok());
  return m;
}

TrialSpec Shell(const std::string& script, std::vector<std::pair<std::string, std::string>> env = {}) {
  TrialSpec s;
  s.argv = {"sh", "-c", script, "job", "{SCRATCH}"};
  s.env = std::move(env);
  return s;
}

bool Exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

TEST(TuneScratch, EachRunWorksInAFreshCopyRemovedAfterIt) {
  const std::string src = stepdoctor::testing::FreshTempDir("sd_tune_scratch");
  const std::string seen = stepdoctor::testing::FreshTempDir("sd_tune_seen");
  std::ofstream(src + "/seed.txt") << "seed\n";
  ProcessRunnerOptions o;
  o.kill_grace_ns = kSecond / 2;
  o.scratch = src;
  ProcessTrialRunner runner(Rate(), o);
  // Fails when a run sees what an earlier one left, or lacks the folder's own file; records
  // where its copy was, through argv ($1), the environment and a substituted variable.
  const std::string job =
      "[ -f \"$1/marker\" ] && { echo stale; exit 3; }; [ -f \"$1/seed.txt\" ] || { echo 'no seed'; exit 4; }; "
      "[ \"$1\" = \"$STEPDOCTOR_SCRATCH\" ] || exit 5; [ \"$OUT\" = \"$1/out\" ] || exit 6; "
      "touch \"$1/marker\"; echo \"$1\" >> " + seen + "/copies; echo 'rate 5'";
  for (int i = 0; i < 3; ++i) {
    TrialRun r = runner.Run(Shell(job, {{"OUT", "{SCRATCH}/out"}}), 10 * kSecond);
    EXPECT_EQ(r.failure, "") << "run " << i;
    EXPECT_TRUE(r.profile_inputs.empty());
  }
  EXPECT_FALSE(Exists(src + "/marker")) << "a run wrote into the folder itself";
  EXPECT_TRUE(Exists(src + "/seed.txt"));
  std::ifstream copies(seen + "/copies");
  std::set<std::string> paths;
  for (std::string line; std::getline(copies, line);) {
    paths.insert(line);
    EXPECT_NE(line, src);
    EXPECT_FALSE(Exists(line)) << line << " outlived its run";
  }
  EXPECT_EQ(paths.size(), 3u);
}

TEST(TuneScratch, AFolderThatCannotBeCopiedFailsTheRunNamingIt) {
  // A named pipe is no file a copy can make (and reading it would block): the run is refused.
  const std::string src = stepdoctor::testing::FreshTempDir("sd_tune_fifo");
  std::ofstream(src + "/a.txt") << "a";
  ASSERT_EQ(::mkfifo((src + "/pipe").c_str(), 0600), 0);
  ProcessRunnerOptions o;
  o.scratch = src;
  ProcessTrialRunner runner(Rate(), o);
  TrialRun r = runner.Run(Shell("echo 'rate 5'"), 10 * kSecond);
  EXPECT_NE(r.failure.find("--scratch " + src + ": cannot copy it to "), std::string::npos) << r.failure;
  EXPECT_FALSE(r.measured);
}

TEST(TuneProfile, AProfiledRunKeepsItsSamplesAndTheTracesItWrote) {
  const std::string traces = stepdoctor::testing::FreshTempDir("sd_tune_traces");
  std::ofstream(traces + "/old.json") << "{}";
  std::string samples;
  {
    ProcessRunnerOptions o;
    o.kill_grace_ns = kSecond / 2;
    o.profile_dir = traces;
    o.profile_interval_ns = kSecond / 10;
    o.gpus = false;
    ProcessTrialRunner runner(Rate(), o);
    TrialSpec spec = Shell("sleep 0.5; echo '{}' > " + traces + "/new.json; echo 'rate 5'");
    TrialRun plain = runner.Run(spec, 10 * kSecond);
    EXPECT_TRUE(plain.profile_inputs.empty()) << "only a profiled run is sampled";
    fs::remove(traces + "/new.json");
    spec.profile = true;
    TrialRun r = runner.Run(spec, 10 * kSecond);
    EXPECT_EQ(r.failure, "");
    ASSERT_EQ(r.profile_inputs.size(), 2u);
    samples = r.profile_inputs[0];
    EXPECT_EQ(r.profile_inputs[1], traces + "/new.json");  // not old.json: there before the run
    EXPECT_EQ(r.profile_note, "");
    std::ifstream in(samples);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_GE(lines, 4) << "header, samples over 0.5 s at 0.1 s, end line";

    // A profiled run that writes no trace: its samples alone, and the note says so.
    spec = Shell("sleep 0.2; echo 'rate 5'");
    spec.profile = true;
    TrialRun none = runner.Run(spec, 10 * kSecond);
    ASSERT_EQ(none.profile_inputs.size(), 1u);
    EXPECT_NE(none.profile_note.find("wrote no new files under " + traces), std::string::npos) << none.profile_note;
    EXPECT_TRUE(Exists(samples));
  }
  EXPECT_FALSE(Exists(samples)) << "the runner's temporary folder outlived it";
}

// A runner that says which runs were profiled.
class ProfileSpy : public testing::FakeRunner {
 public:
  std::vector<bool> profiled;
  TrialRun Run(const TrialSpec& spec, int64_t limit_ns) override {
    profiled.push_back(spec.profile);
    TrialRun r = FakeRunner::Run(spec, limit_ns);
    if (spec.profile) r.profile_inputs = {"samples.jsonl"}, r.profile_note = "no GPU";
    return r;
  }
};

TEST(TuneProfile, OnlyTheBaselinesFirstRunIsProfiled) {
  for (bool profile : {false, true}) {
    ProfileSpy spy;
    spy.factor[{"A", "2"}] = 1.5;
    TuneOptions o;
    o.command = {"train"};
    Knob a;
    a.name = "A";
    a.values = {"1", "2"};
    o.knobs = {a};
    o.budget_ns = 120 * kSecond;
    o.profile = profile;
    auto r = RunTune(o, spy);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_GE(spy.profiled.size(), 4u);
    EXPECT_EQ(spy.profiled[0], profile);
    for (size_t i = 1; i < spy.profiled.size(); ++i) EXPECT_FALSE(spy.profiled[i]) << "run " << i + 1;
    EXPECT_EQ(r->profile.asked, profile);
    EXPECT_EQ(r->profile.run, profile ? 1 : 0);
    EXPECT_EQ(r->profile.inputs, profile ? std::vector<std::string>{"samples.jsonl"} : std::vector<std::string>{});
    EXPECT_EQ(r->profile.note, profile ? "no GPU" : "");
  }
}

void ExpectArgumentError(const std::string& args, const std::string& says) {
  SCOPED_TRACE(args);
  auto r = stepdoctor::testing::RunCli("tune " + args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(TuneProfile, CliRefusesFoldersThatAreNone) {
  ExpectArgumentError("--knob A=1,2 --metric a --scratch /nonexistent/out -- true",
                      "--scratch /nonexistent/out: not a folder");
  ExpectArgumentError("--knob A=1,2 --metric a -- sh job.sh {SCRATCH}", "{SCRATCH} appears without --scratch DIR");
  ExpectArgumentError("--knob A=1,2 --metric a --profile-dir /nonexistent/traces -- true",
                      "--profile-dir /nonexistent/traces: not a folder");
  const std::string dir = stepdoctor::testing::FreshTempDir("sd_tune_knob");
  ExpectArgumentError("--knob SCRATCH=1,2 --metric a --scratch " + dir + " -- true", "--knob SCRATCH: the name");
}

TEST(TuneProfile, TheBaselineIsDiagnosedFromTheTraceItWrote) {
  // Each run copies a recorded input-bound trace into its own scratch folder; R sets the rate.
  const std::string src = stepdoctor::testing::FreshTempDir("sd_tune_prof");
  const std::string job = "sh -c 'cp examples/dataloader_input_bound.pt.trace.json.gz \"$STEPDOCTOR_SCRATCH\"/; "
                          "for i in 1 2 3 4; do echo \"rate $R\"; done'";
  auto r = stepdoctor::testing::RunCli("tune -q --no-gpu -f json --budget 1m --warmup 0 --metric 'rate ([0-9]+)' "
                                       "--knob R=10,30 --scratch " + src + " --profile-dir '{SCRATCH}' -- " + job);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(doc["profile"]["run"].get_int64().value(), 1);
  simdjson::dom::array inputs = doc["profile"]["inputs"].get_array().value();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_NE(std::string(inputs.at(1).get_string().value()).find("dataloader_input_bound.pt.trace.json.gz"),
            std::string::npos);
  EXPECT_EQ(std::string(doc["profile"]["diagnosis"]["verdict"]["bottleneck"].get_string().value()), "input");
  EXPECT_EQ(std::string(doc["best"]["settings"].at(0).get_string().value()), "R=30");
  EXPECT_TRUE(fs::is_empty(src)) << "a run wrote into the scratch folder itself";

  // Without --profile the report says nothing of it.
  auto plain = stepdoctor::testing::RunCli("tune -q -f json --budget 1m --warmup 0 --metric 'rate ([0-9]+)' "
                                           "--knob R=10,30 -- sh -c 'echo \"rate $R\"'");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(parser.parse(plain.out).get(doc), simdjson::SUCCESS);
  EXPECT_TRUE(doc["profile"].is_null());
}

}  // namespace
}  // namespace stepdoctor::tune
