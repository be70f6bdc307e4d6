// Samples files, nvidia-smi CSV logs and SageMaker system metrics -> Trace::counters, and the
// corpus GPU logs through the whole diagnosis.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/live/samples_writer.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }

std::string SamplesFile(int n, bool cut_last) {
  live::SamplesHeader h;
  h.hostname = "trainer-1";
  h.pid = 77;
  h.interval_ns = 1000000000;
  h.gpus.push_back({0, "NVIDIA H100", 80ull << 30});
  std::string s = live::SamplesHeaderJson(h) + "\n";
  for (int i = 0; i < n; ++i) {
    live::Sample smp;
    smp.ts_ns = 1700000000000000000 + int64_t(i) * 1000000000;
    smp.Add("gpu0_util_pct", 20);
    smp.Add("proc_cpu_pct", 190);
    smp.Add("cpu_core0_pct", 95);
    smp.Add("cpu_core1_pct", 95);
    s += live::SampleJson(smp) + "\n";
  }
  if (cut_last) s += "{\"ts_ns\":17000000";
  return s;
}

TEST(SamplesImport, RoundTripThroughDetectionAndImporter) {
  Trace t;
  InputFormat f;
  ASSERT_TRUE(ImportText(SamplesFile(6, false), "run.jsonl", &t, &f).ok());
  EXPECT_EQ(f, InputFormat::kJsonLines);
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].hostname, "trainer-1");
  EXPECT_EQ(t.workers[0].pid, 77);
  const CounterSeries* g = Find(t, "gpu0_util_pct");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->value.size(), 6u);
  EXPECT_EQ(g->unit, "%");
  EXPECT_EQ(t.device(g->device).kind, DeviceKind::kGpu);
  EXPECT_EQ(t.device(g->device).name, "NVIDIA H100");
  EXPECT_EQ(t.device(g->device).memory_bytes, int64_t(80ull << 30));
  EXPECT_EQ(t.device(Find(t, "proc_cpu_pct")->device).kind, DeviceKind::kHostCpu);
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(SamplesImport, CutLastLineIsTruncationNotFailure) {
  Trace t;
  ASSERT_TRUE(ImportText(SamplesFile(6, true), "run.jsonl", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 6u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(SamplesImport, BadValuesAndMissingTimestampsAreCounted) {
  std::string s = "{\"stepdoctor_samples\":1,\"hostname\":\"h\"}\n"
                  "{\"ts_ns\":1,\"cpu_pct_total\":\"high\",\"iowait_pct\":3}\n"
                  "{\"cpu_pct_total\":5}\n"
                  "not json at all\n"
                  "{\"ts_ns\":2,\"cpu_pct_total\":7}\n";
  Trace t;
  ASSERT_TRUE(ImportText(s, "x.jsonl", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMissingTimestamp), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 1u);
  EXPECT_EQ(Find(t, "cpu_pct_total")->value.size(), 1u);
  EXPECT_EQ(Find(t, "iowait_pct")->value.size(), 1u);
}

TEST(SamplesImport, NvidiaSmiNativeCsvWithUnitsAndTwoGpus) {
  std::string csv =
      "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]\n"
      "2024/01/15 10:23:45.123, 0, NVIDIA A100-SXM4-80GB, 97 %, 81000 MiB, 81920 MiB, 310.50 W\n"
      "2024/01/15 10:23:45.125, 1, NVIDIA A100-SXM4-80GB, 12 %, 2000 MiB, 81920 MiB, [N/A]\n"
      "2024/01/15 10:23:46.123, 0, NVIDIA A100-SXM4-80GB, 95 %, 81010 MiB, 81920 MiB, 305.00 W\n"
      "2024/01/15 10:23:46.125, 1, NVIDIA A100-SXM4-80GB, 10 %, 2000 MiB, 81920 MiB, 60.00 W\n";
  Trace t;
  InputFormat f;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t, &f).ok());
  EXPECT_EQ(f, InputFormat::kCsv);
  ASSERT_NE(Find(t, "gpu1_util_pct"), nullptr);
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{97, 95}));
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value[0], 81000.0 * 1024 * 1024);
  EXPECT_EQ(Find(t, "gpu1_power_w")->value.size(), 1u);  // [N/A] is absent, not bad
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 0u);
  const auto& ts = Find(t, "gpu0_util_pct")->ts_ns;
  EXPECT_EQ(ts[1] - ts[0], 1000000000);  // milliseconds kept
  EXPECT_EQ(t.device(Find(t, "gpu0_util_pct")->device).name, "NVIDIA A100-SXM4-80GB");
}

TEST(SamplesImport, CsvThatIsNotAGpuLogIsRefused) {
  Trace t;
  Status st = ImportText("a,b,c\n1,2,3\n", "table.csv", &t);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kUnknownFormat);
}

TEST(SamplesImport, CorpusDcconvCsvMalformedPowerRowsAreCounted) {
  SD_CORPUS_OR_SKIP(path, "gpu-util-csv/DCConv/gpu_usage.csv");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  const Trace& t = r->trace;
  const CounterSeries* util = Find(t, "gpu0_util_pct");
  ASSERT_NE(util, nullptr);
  EXPECT_GT(util->value.size(), 100u);
  // Every power value is a quoted "26.11\n0": counted, the row's other columns kept.
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), util->value.size());
  EXPECT_EQ(Find(t, "gpu0_power_w"), nullptr);
  auto rs = ComputeResourceSignals(t);
  ASSERT_NE(rs, nullptr);
  EXPECT_NEAR(rs->gpu_util_mean_pct.value_or(-1), 18, 6);  // "about 20% throughout"
  EXPECT_EQ(rs->classification, ResourceClass::kGpuLow);
  Report rep = AnalyzeTrace(t);
  ASSERT_FALSE(rep.findings.empty());
  EXPECT_EQ(rep.findings[0].id, "low_gpu_utilisation");
  EXPECT_FALSE(rep.series.empty());
  EXPECT_FALSE(rep.diagnostics.empty());  // the malformed values are reported
}

TEST(SamplesImport, CorpusRectifiedPointFlowCsv) {
  SD_CORPUS_OR_SKIP(path, "gpu-util-csv/Rectified-Point-Flow/gpu_usage.csv");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  const CounterSeries* util = Find(r->trace, "gpu0_util_pct");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->value.size(), 90u);
  EXPECT_EQ(r->trace.diagnostics.count(ImportIssue::kBadCounterValue), 0u);
  // Epoch-second timestamps, 60 s apart.
  EXPECT_EQ(util->ts_ns[1] - util->ts_ns[0], 60000000000);
  EXPECT_EQ(Find(r->trace, "gpu0_mem_total_bytes")->value[0], 24576.0 * 1024 * 1024);
  auto rs = ComputeResourceSignals(r->trace);
  ASSERT_NE(rs, nullptr);
  EXPECT_GT(rs->gpu_util_mean_pct.value_or(-1), 30);  // fluctuates 26-96%: not starved on average
  EXPECT_EQ(rs->classification, ResourceClass::kGpuBusy);
}

TEST(SamplesImport, CorpusSageMakerSystemMetrics) {
  SD_CORPUS_OR_SKIP(path, "smdebug/test_traces/system/incremental/1591748100.algo-1.json");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->trace.workers[0].hostname, "algo-1");
  int cores = 0;
  for (const auto& c : r->trace.counters) cores += c.name.rfind("cpu_core", 0) == 0;
  EXPECT_EQ(cores, 32);
}

}  // namespace
}  // namespace stepdoctor
