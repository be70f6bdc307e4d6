// GPU utilisation logs: every CSV shape the importer reads (ISO 8601 and nvidia-smi timestamps,
// per-GPU rows, a job log with nvidia-smi's table, NUL padding and rows without times), the
// refusal of a CSV that is not one, and the verdict a log gives at each utilisation level.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::AnyNoteContains;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }

const Finding* FindIn(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l 1, two GPUs: GPU 0 at
// `util0` (+-2 around it), GPU 1 at `util1`, `n` polls.
std::string TwoGpuLog(int n, int util0, int util1) {
  std::string s = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n";
  for (int i = 0; i < n; ++i) {
    std::string ts = "2024/11/23 12:23:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".950";
    s += ts + ", 0, NVIDIA RTX A6000, " + std::to_string(util0 + (i % 2 ? 2 : -2)) + " %, 25073 MiB, 49140 MiB\n";
    s += ts + ", 1, NVIDIA RTX A6000, " + std::to_string(util1) + " %, 15 MiB, 49140 MiB\n";
  }
  return s;
}

TEST(GpuLogCsv, IsoTimestampsUtcAndPerGpuRows) {
  std::string csv =
      "timestamp,gpu_index,utilization.gpu,memory.used\n"
      "2025-09-24T03:41:43.487Z,0,90,1000\n"
      "2025-09-24T03:41:43.490Z,1,10,500\n"
      "2025-09-24T03:41:44.487Z,0,92,1000\n"
      "2025-09-24T03:41:44.490Z,1,12,500\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  const CounterSeries* g0 = Find(t, "gpu0_util_pct");
  const CounterSeries* g1 = Find(t, "gpu1_util_pct");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g0->value, (std::vector<double>{90, 92}));
  EXPECT_EQ(g1->value, (std::vector<double>{10, 12}));
  EXPECT_EQ(g0->ts_ns[0], 1758685303487000000);  // Z: UTC, whatever the local zone
  EXPECT_EQ(g0->ts_ns[1] - g0->ts_ns[0], 1000000000);
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value[0], 1000.0 * 1024 * 1024);
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(GpuLogCsv, IsoTimestampWithOffset) {
  std::string csv = "timestamp,utilization.gpu\n2025-09-24T05:41:43.5+02:00,50\n2025-09-24T03:41:44.5Z,60\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  const CounterSeries* g = Find(t, "gpu0_util_pct");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ts_ns[0], 1758685303500000000);
  EXPECT_EQ(g->ts_ns[1] - g->ts_ns[0], 1000000000);
}

TEST(GpuLogCsv, NvidiaSmiTimestampsOneSeriesPerGpu) {
  Trace t;
  ASSERT_TRUE(ImportText(TwoGpuLog(6, 91, 0), "gpu_usage.csv", &t).ok());
  ASSERT_NE(Find(t, "gpu0_util_pct"), nullptr);
  ASSERT_NE(Find(t, "gpu1_util_pct"), nullptr);
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 6u);
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value.size(), 6u);
  const auto& ts = Find(t, "gpu0_util_pct")->ts_ns;
  EXPECT_EQ(ts[1] - ts[0], 1000000000);
}

// What an HPC job script's log looks like: `nvidia-smi` (the default table), then
// `nvidia-smi --query-gpu=... --format=csv -l 10 &` whose file was padded with NULs.
std::string JobLog(bool state_interval, bool index_column) {
  std::string s = "Mon Jan 15 10:00:00 2024\n";
  s += "+---------------------------------------------------------------------------------------+\n"
       "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
       "|-----------------------------------------+----------------------+----------------------+\n"
       "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
       "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
       "|=========================================+======================+======================|\n"
       "|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:07:00.0 Off |                    0 |\n"
       "| N/A   30C    P0              56W / 400W |      4MiB / 40960MiB |      0%      Default |\n"
       "|   1  NVIDIA A100-SXM4-40GB          On  | 00000000:0B:00.0 Off |                    0 |\n"
       "| N/A   31C    P0              57W / 400W |      4MiB / 40960MiB |      0%      Default |\n"
       "+-----------------------------------------+----------------------+----------------------+\n"
       "| Processes:                                                                            |\n"
       "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
       "|    0   N/A  N/A     12345      C   python                                    1234MiB |\n"
       "+---------------------------------------------------------------------------------------+\n";
  if (state_interval) s += "+ nvidia-smi --query-gpu=name,utilization.gpu,memory.used --format=csv -l 10\n";
  s += std::string(300, '\0');
  s += index_column ? "index, name, utilization.gpu [%], memory.used [MiB]\n"
                    : "name, utilization.gpu [%], memory.used [MiB]\n";
  for (int i = 0; i < 4; ++i) {
    s += std::string(index_column ? "0, " : "") + "NVIDIA A100-SXM4-40GB, 88 %, 30000 MiB\n";
    s += std::string(index_column ? "1, " : "") + "NVIDIA A100-SXM4-40GB, 0 %, 4 MiB\n";
  }
  return s;
}

TEST(GpuLogCsv, JobLogWithTableNulPaddingAndNoTimestamps) {
  Trace t;
  InputFormat f;
  Status st = ImportText(JobLog(/*state_interval=*/true, /*index_column=*/false), "slurm-123.out", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kCsv);
  // The table lists two GPUs, so rows alternate GPU 0, GPU 1; polls are -l 10 apart. The table's
  // own snapshot (both GPUs at 0% with 4 MiB: the job not started) is their first reading.
  const CounterSeries* g0 = Find(t, "gpu0_util_pct");
  const CounterSeries* g1 = Find(t, "gpu1_util_pct");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g0->value, (std::vector<double>{0, 88, 88, 88, 88}));
  EXPECT_EQ(g1->value, (std::vector<double>{0, 0, 0, 0, 0}));
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value.front(), 4.0 * 1024 * 1024);
  EXPECT_TRUE(AnyNoteContains(t, "before the CSV header read as one snapshot (nvidia-smi's table)"));
  EXPECT_EQ(g0->ts_ns[1] - g0->ts_ns[0], 10000000000);
  EXPECT_EQ(g0->ts_ns[0], g1->ts_ns[0]);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kPadding), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "300 NUL byte"));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "10 s apart (nvidia-smi -l)"));
  EXPECT_TRUE(AnyNoteContains(t, "nvidia-smi's table"));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 0u);  // no table line read as a row
}

TEST(GpuLogCsv, JobLogWithoutStatedIntervalAssumesAndSaysSo) {
  Trace t;
  ASSERT_TRUE(ImportText(JobLog(/*state_interval=*/false, /*index_column=*/true), "job.log", &t).ok());
  const CounterSeries* g0 = Find(t, "gpu0_util_pct");
  ASSERT_NE(g0, nullptr);
  EXPECT_EQ(g0->value.size(), 5u);  // the table's snapshot, then 4 rows
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value.size(), 5u);
  EXPECT_EQ(g0->ts_ns[1] - g0->ts_ns[0], 1000000000);
  EXPECT_EQ(g0->ts_ns[2] - g0->ts_ns[1], 1000000000);
  EXPECT_TRUE(AnyNoteContains(t, "no -l interval stated: rows assumed 1 s apart"));
}

// Rows with their own times may come from another clock than the table's date: the table stays
// out of the samples. The lines skipped are counted as the file has them, blank ones included.
TEST(GpuLogCsv, TimedRowsLeaveTheTableOutAndCountEveryLineAbove) {
  std::string log = JobLog(false, true);
  const size_t header = log.find("index, name");
  std::string timed = log.substr(0, header) + "\n   \ntimestamp, index, utilization.gpu [%]\n";
  for (int i = 0; i < 4; ++i) timed += fmt::format("2024/01/15 10:00:0{}.000, 0, 50 %\n", i + 1);
  Trace t;
  ASSERT_TRUE(ImportText(timed, "job.log", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{50, 50, 50, 50}));
  const int above = int(std::count(timed.begin(), timed.begin() + timed.find("timestamp,"), '\n'));
  EXPECT_TRUE(AnyNoteContains(t, fmt::format("{} line(s) before the CSV header skipped", above)));
}

// A job script that prints the table, then four untimed rows: five readings of an unused GPU,
// enough for a verdict, where the rows alone are one short of it.
TEST(GpuLogVerdict, TheTableAboveUntimedRowsIsTheirFirstSample) {
  std::string s = "Fri Dec  3 13:29:07 2021\n"
                  "| NVIDIA-SMI 495.44       Driver Version: 495.44       CUDA Version: 11.5     |\n"
                  "|===============================+======================+======================|\n"
                  "|   0  Tesla V100-PCIE...  On   | 00000000:58:00.0 Off |                    0 |\n"
                  "| N/A   30C    P0    25W / 250W |      0MiB / 32510MiB |      0%      Default |\n"
                  "| Processes:                                                                  |\n"
                  "|  No running processes found                                                 |\n"
                  "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n";
  std::string rows;
  for (int i = 0; i < kMinSamples - 1; ++i) rows += "0, Tesla V100-PCIE-32GB, 32510 MiB, 0 MiB, 0 %\n";
  Trace with_table, rows_only;
  ASSERT_TRUE(ImportText(s + rows, "gpu_stats.csv", &with_table).ok());
  ASSERT_TRUE(ImportText(s.substr(s.find("index,")) + rows, "rows.csv", &rows_only).ok());
  EXPECT_EQ(Find(with_table, "gpu0_util_pct")->value.size(), size_t(kMinSamples));
  Report r = AnalyzeTrace(with_table);
  bool unused = false;
  for (const auto& f : r.findings) unused |= f.id == "gpus_unused";
  EXPECT_TRUE(unused) << r.verdict.summary;
  EXPECT_NE(AnalyzeTrace(rows_only).verdict.summary.find("too few samples"), std::string::npos);
}

// Another vendor's monitor is named as such, not called an unknown file.
TEST(GpuLogCsv, OtherVendorsMonitorTablesAreNamed) {
  const std::string npu = "Mon Feb  9 00:37:31 CST 2026\n+------+\n| npu-smi 24.1.rc3      Version: 24.1.rc3 |\n"
                          "| NPU   Name | Health | Power(W) |\n| 0     910B3 | OK | 239.9 |\n";
  Trace t;
  Status st = ImportText(npu, "gpu.log", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kUnknownFormat);
  EXPECT_NE(st.message().find("gpu.log: an npu-smi table (Huawei Ascend NPUs), which stepdoctor does not read"),
            std::string::npos)
      << st.message();
  Trace u;
  Status other = ImportText("some notes\nnothing here\n", "notes.log", &u);
  EXPECT_NE(other.message().find("not a format stepdoctor reads"), std::string::npos) << other.message();
}

TEST(GpuLogCsv, RowsWithoutTimesKeyedByUuid) {
  std::string csv = "uuid, utilization.gpu [%]\n"
                    "GPU-aaaa, 50 %\nGPU-bbbb, 0 %\nGPU-aaaa, 52 %\nGPU-bbbb, 0 %\nGPU-aaaa, 54 %\nGPU-bbbb, 0 %\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{50, 52, 54}));
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{0, 0, 0}));
  EXPECT_TRUE(AnyNoteContains(t, "rows assumed 1 s apart"));
}

TEST(GpuLogCsv, CsvWithoutAGpuColumnIsRefusedNamingTheColumns) {
  Trace t;
  Status st = ImportText("step,loss,lr\n1,2.3,0.1\n2,2.1,0.1\n", "metrics.csv", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kUnknownFormat);
  EXPECT_NE(st.message().find("metrics.csv"), std::string::npos);
  EXPECT_NE(st.message().find("utilization.gpu"), std::string::npos) << st.message();
}

// A log too short to judge says how many samples it holds and how many a verdict needs, not that
// the input holds nothing: one sample under kMinSamples, and at kMinSamples the rules judge.
TEST(GpuLogVerdict, TooFewSamplesSaysSoOnBothSidesOfTheMinimum) {
  auto log = [](int n) {
    std::string s = "index, name, memory.used [MiB], utilization.gpu [%]\n";
    for (int i = 0; i < n; ++i) s += "0, Tesla V100-PCIE-32GB, 0 MiB, 0 %\n";
    return s;
  };
  Trace few;
  ASSERT_TRUE(ImportText(log(kMinSamples - 1), "few.csv", &few).ok());
  Report f = AnalyzeTrace(few);
  EXPECT_EQ(f.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_NE(f.verdict.summary.find("too few samples to judge: the input holds at most " + std::to_string(kMinSamples - 1) +
                                   " samples"),
            std::string::npos)
      << f.verdict.summary;
  EXPECT_NE(f.verdict.summary.find(std::to_string(kMinSamples) + " a verdict needs"), std::string::npos);
  Trace enough;
  ASSERT_TRUE(ImportText(log(kMinSamples), "enough.csv", &enough).ok());
  Report e = AnalyzeTrace(enough);
  EXPECT_EQ(e.verdict.summary.find("too few samples"), std::string::npos) << e.verdict.summary;
}

// The verdicts: a well-fed GPU beside an unused one, a partly fed GPU, a starved one.
TEST(GpuLogVerdict, BusyGpuBesideAnUnusedOne) {
  Trace t;
  ASSERT_TRUE(ImportText(TwoGpuLog(20, 91, 0), "gpu_usage.csv", &t).ok());
  Report r = AnalyzeTrace(t);
  const Finding* fed = FindIn(r, "gpu_well_fed");
  ASSERT_NE(fed, nullptr);
  EXPECT_NEAR(fed->share_pct, 91, 1);  // the unused GPU does not halve the mean
  const Finding* idle = FindIn(r, "idle_gpu");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->title.find("GPU 1 "), std::string::npos) << idle->title;
  EXPECT_NE(idle->fix.summary.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  // Utilisation cannot tell compute from collective waits: no bottleneck, the busy GPU stated.
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown) << r.verdict.summary;
  EXPECT_EQ(r.verdict.summary.rfind("1 of 2 GPUs busy: 91.0% mean utilisation", 0), 0u) << r.verdict.summary;
}

// An idle GPU beside one that itself waits most of the time: spreading the job is not the
// lever (both sides of kGpuLowUtilPct); mixed models are named in the gain.
TEST(GpuLogVerdict, IdleGpuBesideAStarvedOneIsNotTheLever) {
  Trace starved, fed;
  ASSERT_TRUE(ImportText(TwoGpuLog(20, int(kGpuLowUtilPct) - 5, 0), "s.csv", &starved).ok());
  ASSERT_TRUE(ImportText(TwoGpuLog(20, int(kGpuLowUtilPct) + 5, 0), "f.csv", &fed).ok());
  const Report rs = AnalyzeTrace(starved), rf = AnalyzeTrace(fed);
  const Finding* low = FindIn(rs, "idle_gpu");
  const Finding* high = FindIn(rf, "idle_gpu");
  ASSERT_NE(low, nullptr);
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(low->severity, FindingSeverity::kLow);
  EXPECT_EQ(low->gain_text.rfind("little until the GPU in use is kept busy", 0), 0u) << low->gain_text;
  EXPECT_EQ(high->severity, FindingSeverity::kModerate);
  EXPECT_EQ(high->gain_text.rfind("up to 2.0x", 0), 0u) << high->gain_text;
  EXPECT_EQ(high->gain_text.find("the models differ"), std::string::npos);  // both A6000
  std::string mixed_log = TwoGpuLog(20, 91, 0);
  const std::string a6000 = "1, NVIDIA RTX A6000";
  for (size_t p = mixed_log.find(a6000); p != std::string::npos; p = mixed_log.find(a6000, p))
    mixed_log.replace(p, a6000.size(), "1, NVIDIA GeForce RTX 4080");
  Trace mixed;
  ASSERT_TRUE(ImportText(mixed_log, "m.csv", &mixed).ok());
  const Report rm = AnalyzeTrace(mixed);
  const Finding* m = FindIn(rm, "idle_gpu");
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->gain_text.find("the models differ (NVIDIA RTX A6000, NVIDIA GeForce RTX 4080), and synchronous data parallelism runs at the slowest"), std::string::npos)
      << m->gain_text;
}

TEST(GpuLogVerdict, PartlyFedAndStarvedGpus) {
  Trace mid;
  ASSERT_TRUE(ImportText(TwoGpuLog(20, 55, 50), "mid.csv", &mid).ok());
  Report m = AnalyzeTrace(mid);
  ASSERT_NE(FindIn(m, "gpu_partly_idle"), nullptr);
  EXPECT_EQ(FindIn(m, "gpu_well_fed"), nullptr);
  EXPECT_EQ(FindIn(m, "idle_gpu"), nullptr);  // both GPUs work
  EXPECT_EQ(m.verdict.bottleneck, Bottleneck::kUnknown);  // a log cannot say what the GPU waits on
  EXPECT_NE(m.verdict.summary.find("idle"), std::string::npos) << m.verdict.summary;

  Trace low;
  ASSERT_TRUE(ImportText(TwoGpuLog(20, 20, 18), "low.csv", &low).ok());
  Report l = AnalyzeTrace(low);
  ASSERT_NE(FindIn(l, "low_gpu_utilisation"), nullptr);
  EXPECT_EQ(FindIn(l, "gpu_partly_idle"), nullptr);
  EXPECT_NE(l.verdict.summary.find("busy only"), std::string::npos) << l.verdict.summary;
}

TEST(GpuLogVerdict, CorpusOpenadTwoA6000) {
  SD_CORPUS_OR_SKIP(path, "wild/openad_2xA6000_gpu_usage.csv");
  auto imported = ImportPaths({path});
  ASSERT_TRUE(imported.ok()) << imported.message();
  auto rs = ComputeResourceSignals(imported->trace);
  ASSERT_NE(rs, nullptr);
  ASSERT_EQ(rs->gpus.size(), 2u);
  // Ground truth: GPU 0 averages 91%, GPU 1 is at 0% throughout.
  EXPECT_NEAR(rs->gpus[0].util_mean_pct.value_or(-1), 91, 2);
  EXPECT_FALSE(rs->gpus[0].unused);
  EXPECT_TRUE(rs->gpus[1].unused);
  EXPECT_LT(rs->gpus[1].util_mean_pct.value_or(99), 0.5);
  EXPECT_LE(rs->gpus[1].util_peak_pct.value_or(99), 1);  // a few samples at 1%, the rest 0%
  Report r = AnalyzeTrace(imported->trace);
  const Finding* idle = FindIn(r, "idle_gpu");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->title.find("GPU 1 "), std::string::npos) << idle->title;
  // Its 15 MiB reading is stated as read, not rounded to "0.0 GiB".
  std::string evidence;
  for (const auto& e : idle->evidence) evidence += e.value + "\n";
  EXPECT_NE(evidence.find("memory used peak 15 MiB of 48.0 GiB"), std::string::npos) << evidence;
  ASSERT_NE(FindIn(r, "gpu_well_fed"), nullptr);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown) << r.verdict.summary;
  EXPECT_EQ(r.verdict.summary.find("compute-bound"), std::string::npos) << r.verdict.summary;
  // Its index column tells the GPUs apart (their rows 1 ms apart): nothing to note.
  EXPECT_EQ(imported->trace.diagnostics.count(ImportIssue::kGpuAttribution), 0u);
  EXPECT_EQ(imported->trace.diagnostics.count(ImportIssue::kSharedTimestamp), 0u);
  EXPECT_FALSE(rs->gpu_startup.has_value());  // busy from its first sample
}

TEST(GpuLogVerdict, CorpusRectifiedPointFlowIsPartlyFed) {
  SD_CORPUS_OR_SKIP(path, "gpu-util-csv/Rectified-Point-Flow/gpu_usage.csv");
  auto imported = ImportPaths({path});
  ASSERT_TRUE(imported.ok()) << imported.message();
  Report r = AnalyzeTrace(imported->trace);
  // Utilisation fluctuates between 26% and 96%: busy on average, idle for a good part.
  const Finding* f = FindIn(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_GT(f->share_pct, 20);
  EXPECT_LT(f->share_pct, 70);
  EXPECT_EQ(r.verdict.summary.find("hold no steps or activity"), std::string::npos) << r.verdict.summary;
  // Ground truth: 90 samples a minute apart, mean 57.7%; the first 3 at 0% while memory grows to
  // 4.7 GiB are 3.3% of the log, under kStartupMinSharePct: not worth a separate figure.
  auto rs = ComputeResourceSignals(imported->trace);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->samples, 90);
  EXPECT_NEAR(rs->gpu_util_mean_pct.value_or(-1), 57.7, 0.05);
  EXPECT_FALSE(rs->gpu_startup.has_value());
  EXPECT_EQ(f->title.find("start-up"), std::string::npos) << f->title;
}

}  // namespace
}  // namespace stepdoctor
