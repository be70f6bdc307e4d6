// The samples importers (importers/samples/: SageMaker metrics, stepdoctor samples, GPU CSV
// logs) against the time range and int64 byte counts (core/checked_time.h): the
// ../shared/fuzz-found reproducers written inline, and each bound from both sides.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/model/series_names.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using series::GpuMetric;
using testing::FindCounter;
using testing::ImportText;

std::string SageMakerLine(const std::string& dim, const std::string& name, double value, const std::string& ts) {
  return R"({"Type":"x","Name":")" + name + R"(","Dimension":")" + dim + R"(","Value":)" + std::to_string(value) +
         R"(,"NodeId":"algo-1","Timestamp":)" + ts + "}\n";
}

// fuzz-found/sagemaker_huge_timestamp.json: 20 GPU and CPU samples 0.5 s apart, and one of each
// at Timestamp 1e12 s (the year 33658). seconds x 1e9 overflowed int64 and the window came out
// as "20 over -7631623927.4 s". The two are counted and skipped: 19 samples over 9.5 s.
TEST(SamplesTimeRange, SageMakerHugeTimestampReproducer) {
  std::string text;
  for (int i = 0; i < 20; ++i) {
    std::string ts = i == 10 ? "1000000000000.0" : std::to_string(1591748100.0 + 0.5 * i);
    text += SageMakerLine("GPUUtilization", "gpu0", 5, ts) + SageMakerLine("CPUUtilization", "cpu0", 90, ts);
  }
  Trace t;
  ASSERT_TRUE(ImportText(text, "metrics.json", &t).ok());
  t.Finalize();
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 2u);
  const CounterSeries* gpu = FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct));
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->ts_ns.size(), 19u);
  auto r = ComputeResourceSignals(t);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->samples, 19);
  EXPECT_DOUBLE_EQ(r->window_s, 9.5);
  EXPECT_DOUBLE_EQ(r->interval_s, 0.5);
}

// SageMaker seconds on both sides of the bound (2^62 ns = 4611686018.43 s).
TEST(SamplesTimeRange, SageMakerTimestampBound) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += SageMakerLine("GPUUtilization", "gpu0", 5, std::to_string(4611686010 + i));
  text += SageMakerLine("GPUUtilization", "gpu0", 5, "4611686019");
  text += SageMakerLine("GPUUtilization", "gpu0", 5, "-4611686019");
  Trace t;
  ASSERT_TRUE(ImportText(text, "metrics.json", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 2u);
  EXPECT_EQ(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct))->ts_ns.size(), 5u);
}

// A file all of whose times are past the range says so in its error.
TEST(SamplesTimeRange, NothingInRangeSaysWhy) {
  Trace t;
  Status st = ImportText(SageMakerLine("GPUUtilization", "gpu0", 5, "1e12") + SageMakerLine("CPUUtilization", "cpu0", 5, "2e12"),
                         "metrics.json", &t);
  EXPECT_EQ(st.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(st.message().find("outside the representable range"), std::string::npos) << st.message();
}

// stepdoctor's own samples carry int64 ts_ns: one at kMaxTimeNs is kept, one past it counted.
TEST(SamplesTimeRange, SamplesFileTsNsBound) {
  std::string text = "{\"stepdoctor_samples\":1,\"hostname\":\"h\"}\n";
  for (int i = 4; i >= 0; --i) text += "{\"ts_ns\":" + std::to_string(kMaxTimeNs - i) + ",\"cpu_pct\":50}\n";
  text += "{\"ts_ns\":" + std::to_string(kMaxTimeNs + 1) + ",\"cpu_pct\":50,\"proc_cpu_pct\":10}\n";
  text += "{\"ts_ns\":-9223372036854775807,\"cpu_pct\":50}\n";
  Trace t;
  ASSERT_TRUE(ImportText(text, "s.jsonl", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 3u);  // each sample of the lines past the range
  const CounterSeries* cpu = FindCounter(t, "cpu_pct");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->ts_ns.size(), 5u);
  EXPECT_EQ(cpu->ts_ns.back(), kMaxTimeNs);
  EXPECT_EQ(FindCounter(t, "proc_cpu_pct"), nullptr);  // its only sample was past the range
}

std::string GpuCsv(const std::vector<std::string>& times, const std::string& total = "143771 MiB") {
  std::string s = "timestamp, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n";
  for (const auto& ts : times) s += ts + ", 0 %, 529 MiB, " + total + "\n";
  return s;
}

// fuzz-found/gpu_usage_year8834.csv: 19 rows 0.5 s apart in 2026, one dated 8834. seconds x 1e9
// overflowed and the log spanned "108686574.9 min". The row is counted and skipped.
TEST(SamplesTimeRange, GpuCsvYear8834Reproducer) {
  std::vector<std::string> times;
  for (int i = 0; i < 19; ++i) {
    int ms = 36937 + 500 * i;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s/11/30 10:59:%02d.%03d", i == 3 ? "8834" : "2026", ms / 1000, ms % 1000);
    times.push_back(buf);
  }
  Trace t;
  ASSERT_TRUE(ImportText(GpuCsv(times), "gpu.csv", &t).ok());
  t.Finalize();
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);
  auto r = ComputeResourceSignals(t);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->samples, 18);
  EXPECT_NEAR(r->window_s, 9.0, 1e-9);
}

// fuzz-found/gpu_csv_year_overflow.csv: one row dated the year 4 (strptime reads "4/1/300:5:4"),
// with no value. The release build overflowed seconds x 1e9 and then said only "no GPU samples".
TEST(SamplesTimeRange, GpuCsvYear4Reproducer) {
  Trace t;
  Status st = ImportText("time,power_w\n4/1/300:5:4,", "gpu.csv", &t);
  EXPECT_EQ(st.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(st.message().find("1 row(s) skipped, their time outside the representable range"), std::string::npos)
      << st.message();
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);
}

// Dates either side of the range's ends (UTC, so the test does not depend on the zone).
TEST(SamplesTimeRange, TimestampParsingBound) {
  int64_t ns = 0;
  EXPECT_EQ(csv::ParseTimestamp("2116-02-20T23:53:38Z", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, int64_t{4611686018} * 1'000'000'000);
  EXPECT_EQ(csv::ParseTimestamp("2116-02-20T23:53:39Z", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(csv::ParseTimestamp("1823-11-12T00:06:22Z", &ns), TimeParse::kOk);
  EXPECT_EQ(csv::ParseTimestamp("1823-11-12T00:06:21Z", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(csv::ParseTimestamp("8834-11-30T10:59:38Z", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(csv::ParseTimestamp("4611686018.0", &ns), TimeParse::kOk);  // seconds since the epoch
  EXPECT_EQ(csv::ParseTimestamp("4611686019.0", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(csv::ParseTimestamp("1e300", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(csv::ParseTimestamp("yesterday", &ns), TimeParse::kNotATime);
}

// An elapsed-seconds column past the range is counted per row like a date.
TEST(SamplesTimeRange, GpuCsvElapsedSecondsBound) {
  std::string s = "elapsed_sec,gpu_util_pct\n";
  for (int i = 0; i < 5; ++i) s += std::to_string(i) + ",50\n";
  s += "4611686019,50\n1e300,50\n";
  Trace t;
  ASSERT_TRUE(ImportText(s, "gpu.csv", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 2u);
  EXPECT_EQ(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct))->ts_ns.size(), 5u);
}

// fuzz-found/gpu_usage_huge_memtotal.csv: memory.total of 1e50 MiB, which the release build
// kept (and cast to int64): "0.8 GiB of 9.7e46 GiB". A byte count past int64 is counted and the
// sample skipped; the device's memory is then unknown, not absurd.
TEST(SamplesTimeRange, GpuCsvHugeMemoryTotalReproducer) {
  std::vector<std::string> times;
  for (int i = 0; i < 6; ++i) times.push_back("2026/11/30 10:59:3" + std::to_string(i) + ".000");
  Trace t;
  ASSERT_TRUE(ImportText(GpuCsv(times, "1e50 MiB"), "gpu.csv", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kValueOutOfRange), 6u);
  EXPECT_EQ(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kMemTotalBytes)), nullptr);
  EXPECT_NE(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kMemUsedBytes)), nullptr);
  for (const Device& d : t.devices) EXPECT_EQ(d.memory_bytes, 0) << d.name;
  t.Finalize();
  auto r = ComputeResourceSignals(t);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->gpus.size(), 1u);
  EXPECT_FALSE(r->gpus[0].mem_total_bytes.has_value());
  EXPECT_FALSE(r->gpus[0].mem_used_peak_pct.has_value());
}

// The other side: 8 EiB - 1 MiB is a byte count int64 holds, so it is kept (and becomes the
// device's memory); 8 EiB is not.
TEST(SamplesTimeRange, GpuCsvMemoryTotalBound) {
  std::string s = "timestamp, index, memory.total [MiB]\n";
  s += "2026/11/30 10:59:30.000, 0, 8796093022207 MiB\n";  // 2^43 - 1 MiB = 2^63 - 2^20 bytes
  s += "2026/11/30 10:59:30.000, 1, 8796093022208 MiB\n";  // 2^43 MiB = 2^63 bytes
  Trace t;
  ASSERT_TRUE(ImportText(s, "gpu.csv", &t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kValueOutOfRange), 1u);
  EXPECT_NE(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kMemTotalBytes)), nullptr);
  EXPECT_EQ(FindCounter(t, series::GpuSeriesName(1, GpuMetric::kMemTotalBytes)), nullptr);
  int64_t gpu0_bytes = -1;
  for (const Device& d : t.devices)
    if (d.kind == DeviceKind::kGpu && d.index == 0) gpu0_bytes = d.memory_bytes;
  EXPECT_EQ(gpu0_bytes, std::numeric_limits<int64_t>::max() - ((int64_t{1} << 20) - 1));  // 2^63 - 2^20
}

// Rows without times, spaced by the interval nvidia-smi's command line states: one too long to
// hold in nanoseconds is no interval (the assumed 1 s is used); with a long one that fits, the
// polls that would pass the range are counted, not wrapped.
TEST(SamplesTimeRange, GpuCsvLoopIntervalBound) {
  auto log = [](const std::string& loop) {
    std::string s = "+ nvidia-smi --query-gpu=index,utilization.gpu --format=csv -l " + loop + "\nindex, utilization.gpu [%]\n";
    for (int i = 0; i < 5; ++i) s += "0, 50 %\n";
    return s;
  };
  Trace t;
  Status st = ImportText(log("99999999999"), "gpu.csv", &t);  // 1e11 s: 1e20 ns
  ASSERT_TRUE(st.ok()) << st.message();
  const CounterSeries* c = FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct));
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->ts_ns.size(), 5u);
  EXPECT_EQ(c->ts_ns[4] - c->ts_ns[0], 4'000'000'000);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 0u);

  Trace far;
  ASSERT_TRUE(ImportText(log("2000000000"), "gpu.csv", &far).ok());  // 2e9 s apart: polls 0..2 fit
  c = FindCounter(far, series::GpuSeriesName(0, GpuMetric::kUtilPct));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->ts_ns.size(), 3u);
  EXPECT_EQ(far.diagnostics.count(ImportIssue::kTimeOutOfRange), 2u);
}

// A line cut short mid-file (SageMaker's 1591160699.algo-1.json.corrupt: its last record lost
// its Timestamp and closing brace): the other lines are read, and the note names the file, the
// line and how many were read.
TEST(SamplesTimeRange, SageMakerCutLineIsNamedByFileAndLine) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += SageMakerLine("GPUUtilization", "gpu0", 10 + i, std::to_string(1591160699.0 + i));
  text += R"({"Type": "gpu", "Name":"gpu1", "Dimension": "GPUMemoryUtilization", "Value":47.76,"NodeId":"algo-1")" "\n";
  text += SageMakerLine("GPUUtilization", "gpu0", 20, "1591160705.0");
  Trace t;
  ASSERT_TRUE(ImportText(text, "1591160699.algo-1.json", &t).ok());
  t.Finalize();
  ASSERT_NE(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct)), nullptr);
  EXPECT_EQ(FindCounter(t, series::GpuSeriesName(0, GpuMetric::kUtilPct))->value.size(), 6u);
  bool named = false;
  for (const auto& [issue, note] : t.diagnostics.notes())
    named |= issue == ImportIssue::kMalformedEvent && note.find("1591160699.algo-1.json: line 6 ") != std::string::npos &&
             note.find("6 lines read") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace stepdoctor
