// Rank summaries: what `summarize` writes reads back whole, `merge` on the summaries gives the
// report `diagnose` gives on the traces (byte for byte in JSON), and bad summaries are refused
// with the file and the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/summary/rank_summaries_to_report.h"
#include "stepdoctor/summary/summary_file.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::MakeTempDir;
using testing::RunCli;
using testing::SourcePath;

const std::vector<std::string> kDdp = {SourcePath("examples/ddp/ddp_rank0.pt.trace.json.gz"),
                                       SourcePath("examples/ddp/ddp_rank1.pt.trace.json.gz")};

RankSummary Summarize(const std::string& path) {
  auto imported = ImportPaths({path});
  EXPECT_TRUE(imported.ok()) << imported.message();
  auto s = TraceToRankSummary(imported->trace, path);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(*s);
}

// diagnose's way: the files read apart, each summarised in memory.
Report ViaTraces(const std::vector<std::string>& paths) {
  ImportOptions o;
  o.keep_parts = true;
  auto imported = ImportPaths(paths, o);
  EXPECT_TRUE(imported.ok()) << imported.message();
  EXPECT_TRUE(ArePartsRanks(imported->parts));
  auto r = RankTracesToReport(std::move(imported->parts), imported->part_paths);
  EXPECT_TRUE(r.ok()) << r.message();
  return std::move(*r);
}

// merge's way: each summary written to a file and read back.
Report ViaFiles(const std::vector<std::string>& paths) {
  const std::string dir = MakeTempDir("summaries");
  std::vector<RankSummary> read;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string file = dir + "/rank" + std::to_string(i) + ".sdsum";
    EXPECT_TRUE(WriteSummaryFile(Summarize(paths[i]), file).ok());
    auto s = ReadSummaryFile(file);
    EXPECT_TRUE(s.ok()) << s.message();
    read.push_back(std::move(*s));
  }
  return RankSummariesToReport(std::move(read));
}

TEST(Summary, MergeOfSummariesIsTheReportOfTheTraces) {
  const std::string a = RenderJson(ViaTraces(kDdp), {}), b = RenderJson(ViaFiles(kDdp), {});
  EXPECT_EQ(a, b);
  // And it is the job's report: both ranks in the table, held against each other at collectives.
  Report r = ViaFiles(kDdp);
  ASSERT_EQ(r.workers.size(), 2u);
  ASSERT_TRUE(r.alignment.has_value());
  EXPECT_EQ(r.inputs.size(), 2u);
}

TEST(Summary, JobReportAgreesWithTheTracesReadTogether) {
  // The merged report describes the same ranks as one analysis of both traces in one Trace.
  auto together = ImportPaths(kDdp);
  ASSERT_TRUE(together.ok());
  Report one = AnalyzeTrace(together->trace), merged = ViaTraces(kDdp);
  ASSERT_EQ(one.workers.size(), merged.workers.size());
  for (size_t i = 0; i < one.workers.size(); ++i) {
    EXPECT_EQ(one.workers[i].name, merged.workers[i].name);
    EXPECT_DOUBLE_EQ(one.workers[i].median_step_ms, merged.workers[i].median_step_ms);
    EXPECT_EQ(one.workers[i].late_ms.has_value(), merged.workers[i].late_ms.has_value());
    if (one.workers[i].late_ms && merged.workers[i].late_ms) {
      EXPECT_DOUBLE_EQ(*one.workers[i].late_ms, *merged.workers[i].late_ms);
    }
  }
  EXPECT_EQ(one.verdict.summary, merged.verdict.summary);
  std::vector<std::string> ids_one, ids_merged;
  for (const auto& f : one.findings) ids_one.push_back(f.id);
  for (const auto& f : merged.findings) ids_merged.push_back(f.id);
  EXPECT_EQ(ids_one, ids_merged);
}

// Two ranks of one job, each a single pass without step markers (one window each), with one
// all-reduce: compared window to window, the one that waited longer at it showing the longer
// communication. Without a collective they are not ranks one can compare: no rows.
std::string OnePassRank(int rank, double allreduce_us, bool collective) {
  std::string ev = ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":5000}";
  ev += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,"
        "\"args\":{\"correlation\":1}}";
  ev += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_32x32\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":2000,"
        "\"args\":{\"correlation\":1,\"stream\":7,\"device\":0}}";
  if (collective) {
    ev += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":5200,\"dur\":10,"
          "\"args\":{\"correlation\":2}}";
    ev += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)\","
          "\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(20000 - allreduce_us) + ",\"dur\":" + std::to_string(allreduce_us) +
          ",\"args\":{\"correlation\":2,\"stream\":7,\"device\":0}}";
  }
  ev += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":5300,\"dur\":14800}";
  return "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" + std::to_string(rank) +
         ",\"world_size\":2},\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
         "\"args\":{\"name\":\"python\"}}" + ev + "]}";
}

TEST(Summary, RanksWithoutStepsAreComparedWindowToWindowBothSides) {
  for (bool collective : {true, false}) {
    const std::string dir = MakeTempDir(collective ? "onepass" : "onepass_nocoll");
    std::vector<std::string> paths;
    for (int r = 0; r < 2; ++r) {
      paths.push_back(dir + "/rank" + std::to_string(r) + ".pt.trace.json");
      std::ofstream(paths.back()) << OnePassRank(r, r == 1 ? 11000 : 10, collective);
    }
    Report rep = ViaTraces(paths);
    if (!collective) {
      EXPECT_TRUE(rep.workers.empty());
      continue;
    }
    ASSERT_EQ(rep.workers.size(), 2u);
    EXPECT_EQ(rep.workers[0].steps, 1);
    EXPECT_LT(rep.workers[0].collectives_ms, 0.1);
    EXPECT_NEAR(rep.workers[1].collectives_ms, 11.0, 0.1);
    EXPECT_EQ(RenderJson(rep, {}), RenderJson(ViaFiles(paths), {}));  // merge gives the same
  }
}

TEST(Summary, RoundTripKeepsEveryField) {
  RankSummary s = Summarize(kDdp[1]);
  ASSERT_TRUE(s.has_steps);
  ASSERT_FALSE(s.collectives.names.empty());
  auto back = SummaryFromJson(SummaryToJson(s), "x.sdsum");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(SummaryToJson(*back), SummaryToJson(s));
  EXPECT_EQ(back->figures.step_ms, s.figures.step_ms);  // exactly, not rounded
  EXPECT_EQ(back->collectives.device.size() + back->collectives.host.size(),
            s.collectives.device.size() + s.collectives.host.size());
  EXPECT_EQ(back->report.lanes.size(), s.report.lanes.size());
}

TEST(Summary, BadSummariesNameTheFileAndTheReason) {
  const std::string good = SummaryToJson(Summarize(kDdp[0]));
  auto expect_error = [](const std::string& json, const std::string& part) {
    auto r = SummaryFromJson(json, "bad.sdsum");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("bad.sdsum"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(part), std::string::npos) << r.message();
    EXPECT_EQ(r.message().find('\n'), std::string::npos);
  };
  expect_error(good.substr(0, good.size() / 2), "not a stepdoctor summary");
  expect_error("{\"traceEvents\": []}", "not a stepdoctor summary");
  std::string v2 = good;
  v2.replace(v2.find("\"stepdoctor_summary\":1"), 22, "\"stepdoctor_summary\":2");
  expect_error(v2, "summary version 2");
  std::string bad_name = good;
  const size_t at = bad_name.find("\"host\":[");
  ASSERT_NE(at, std::string::npos);
  bad_name.insert(at + 8, bad_name[at + 8] == ']' ? "0,99999,1,2" : "0,99999,1,2,");
  expect_error(bad_name, "collectives.host");
}

TEST(Summary, ATraceOfSeveralWorkersIsRefused) {
  auto imported = ImportPaths(kDdp);
  ASSERT_TRUE(imported.ok());
  auto s = TraceToRankSummary(imported->trace, "both");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 workers"), std::string::npos) << s.message();
}

TEST(SummaryCli, SummarizeThenMergeGivesDiagnose) {
  const std::string dir = MakeTempDir("summarize_cli");
  auto s = RunCli("summarize " + kDdp[0] + " " + kDdp[1] + " -o " + dir + "/sums/");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/sums/ddp_rank0.pt.trace.json.gz.sdsum"));
  auto merged = RunCli("merge " + dir + "/sums -f json");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  auto diagnosed = RunCli("diagnose " + kDdp[0] + " " + kDdp[1] + " -f json");
  ASSERT_EQ(diagnosed.exit_code, 0) << diagnosed.err;
  auto one_thread = RunCli("diagnose " + kDdp[0] + " " + kDdp[1] + " -f json", "STEPDOCTOR_THREADS=1");
  EXPECT_EQ(one_thread.out, diagnosed.out);  // ranks summarised in parallel or not: one report
  // The inputs differ (summaries name the traces they came from): the same traces either way.
  EXPECT_EQ(merged.out, diagnosed.out);
  auto on_folder = RunCli("diagnose " + dir + "/sums -f json");
  EXPECT_EQ(on_folder.exit_code, 0) << on_folder.err;
  EXPECT_EQ(on_folder.out, merged.out);
}

TEST(SummaryCli, BadArgumentsExitTwoWithOneLine) {
  const std::string dir = MakeTempDir("summarize_bad");
  auto several_to_file = RunCli("summarize " + kDdp[0] + " " + kDdp[1] + " -o " + dir + "/one.sdsum");
  EXPECT_EQ(several_to_file.exit_code, 2);
  EXPECT_NE(several_to_file.err.find("names a folder"), std::string::npos) << several_to_file.err;
  auto merge_trace = RunCli("merge " + kDdp[0]);
  EXPECT_EQ(merge_trace.exit_code, 2);
  EXPECT_NE(merge_trace.err.find("not a summary"), std::string::npos) << merge_trace.err;
  auto missing = RunCli("merge " + dir + "/absent");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  std::ofstream(dir + "/broken.sdsum") << "{\"stepdoctor_summary\":1,";
  auto broken = RunCli("merge " + dir + "/broken.sdsum");
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("broken.sdsum"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace stepdoctor
