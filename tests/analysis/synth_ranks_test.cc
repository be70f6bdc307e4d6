// A 64-rank job made from one real rank's trace by scripts/synth_ranks.py, with a straggler and
// clock offsets injected at known sizes: the report must find the straggler, what the others
// lose to it per step and every rank's clock offset (each within 10%, or 0.5 ms where that is
// more). The examples/ddp recording always runs; a GPU NCCL trace from the corpus where present.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::MakeTempDir;
using testing::ReadFileOrDie;
using testing::SourcePath;

std::string Python() {
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return std::system("command -v python3 >/dev/null 2>&1") == 0 ? "python3" : "";
}

struct Truth {
  int straggler = -1;
  double late_ms = 0;
  std::vector<double> skew_ms;
  std::string collectives_on;
};

Truth ReadTruth(const std::string& dir) {
  simdjson::dom::parser p;
  simdjson::padded_string json(ReadFileOrDie(dir + "/truth.json"));
  simdjson::dom::element doc = p.parse(json);
  Truth t;
  t.straggler = int(int64_t(doc["straggler"]));
  t.late_ms = double(doc["late_ms_per_step"]);
  for (double s : doc["clock_skew_ms"].get_array()) t.skew_ms.push_back(s);
  t.collectives_on = std::string(std::string_view(doc["collectives_on"]));
  return t;
}

// The rank number of a report row: the trace's where it states one, else the file's digits.
int RankOf(const WorkerRow& w) {
  if (w.rank >= 0) return w.rank;
  size_t i = w.name.find_first_of("0123456789");
  return i == std::string::npos ? -1 : std::atoi(w.name.c_str() + i);
}

void CheckRecovered(const std::string& source, int ranks, int straggler, double late_ms, double jitter_ms) {
  const std::string py = Python();
  if (py.empty()) GTEST_SKIP() << "python3 not found: skipping the generated rank set";
  const std::string dir = MakeTempDir("synth_ranks");
  const std::string cmd = py + " " + SourcePath("scripts/synth_ranks.py") + " '" + source + "' " + dir +
                          " --ranks " + std::to_string(ranks) + " --straggler " + std::to_string(straggler) +
                          " --late-ms " + std::to_string(late_ms) + " --jitter-ms " + std::to_string(jitter_ms);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const Truth truth = ReadTruth(dir);
  ASSERT_EQ(truth.straggler, straggler);

  // Read the way `diagnose DIR` reads ranks: each apart, summarised, merged (what `merge` gives
  // on their summaries); the ranks in one Trace must agree with it.
  ImportOptions apart;
  apart.keep_parts = true;
  auto imported = ImportPaths({dir}, apart);
  ASSERT_TRUE(imported.ok()) << imported.message();
  ASSERT_TRUE(ArePartsRanks(imported->parts));
  auto merged = RankTracesToReport(std::move(imported->parts), imported->part_paths);
  ASSERT_TRUE(merged.ok()) << merged.message();
  const Report& r = *merged;
  {
    auto together = ImportPaths({dir});
    ASSERT_TRUE(together.ok()) << together.message();
    Report one = AnalyzeTrace(together->trace);
    ASSERT_EQ(one.workers.size(), r.workers.size());
    for (size_t i = 0; i < r.workers.size(); ++i) {
      EXPECT_EQ(one.workers[i].name, r.workers[i].name);
      EXPECT_EQ(one.workers[i].late_ms, r.workers[i].late_ms) << r.workers[i].name;
      EXPECT_EQ(one.workers[i].clock_skew_ms, r.workers[i].clock_skew_ms) << r.workers[i].name;
    }
  }
  ASSERT_EQ(r.workers.size(), size_t(ranks));
  ASSERT_TRUE(r.alignment.has_value());
  ASSERT_TRUE(r.alignment->aligned) << r.alignment->why_not;
  EXPECT_EQ(r.alignment->collectives_on, truth.collectives_on);

  const Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.id == "straggler") f = &x;
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  double index = -1, late = -1;
  for (const auto& [k, v] : f->figures) {
    if (k == "worker_index") index = v;
    if (k == "late_ms_per_step") late = v;
  }
  ASSERT_GE(index, 0);
  EXPECT_EQ(RankOf(r.workers[size_t(index)]), straggler) << f->title;
  EXPECT_NEAR(late, truth.late_ms, std::max(0.5, 0.1 * truth.late_ms));

  // Offsets are measured from the first rank's clock; the truth's from rank 0's.
  const double ref = truth.skew_ms[size_t(RankOf(r.workers[0]))];
  for (const auto& w : r.workers) {
    ASSERT_TRUE(w.clock_skew_ms.has_value()) << w.name;
    const double want = truth.skew_ms[size_t(RankOf(w))] - ref;
    EXPECT_NEAR(*w.clock_skew_ms, want, std::max(0.5, 0.1 * std::abs(want))) << w.name;
  }
}

TEST(SynthRanks, SixtyFourRanksFromTheDdpRecording) {
  // gloo on CPU: each step of the source is about 3.4 s; 300 ms late is about 9% of it.
  CheckRecovered(SourcePath("examples/ddp/ddp_rank0.pt.trace.json.gz"), 64, 17, 300, 5);
}

TEST(SynthRanks, EightRanksFromAnNcclTrace) {
  // A100 NCCL, 243 ms steps with 7 all-reduces each: 20 ms late at the first.
  SD_CORPUS_OR_SKIP(path, "hta-testdata/nccl_parser_config/nccl_data.json.gz");
  CheckRecovered(path, 8, 5, 20, 0.5);
}

}  // namespace
}  // namespace stepdoctor
