// GPU logs as found in training repositories, each shape inline: a one-column log with its
// header repeated and no times, a CRLF custom logger with epoch times and memory without units,
// a home-made monitor's Date,Time and spelled-out headers, a clock coarser than the polling,
// and logs whose GPU column does not tell the GPUs apart.
#include <gtest/gtest.h>

#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::NotesOf;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }
constexpr double kMiB = 1024.0 * 1024.0;

TEST(GpuLogShapes, OneColumnWithRepeatedHeaderAndNoTimes) {
  std::string csv;
  for (int v : {85, 100, 94, 91, 100, 94}) csv += "utilization.gpu [%]\n" + std::to_string(v) + " %\n";
  Trace t;
  InputFormat f;
  Status st = ImportText(csv, "gpu_utilization.csv", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kCsv);
  const CounterSeries* g = Find(t, "gpu0_util_pct");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->value, (std::vector<double>{85, 100, 94, 91, 100, 94}));  // the repeated headers are not rows
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_TRUE(t.workers[0].sample_times_assumed);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  EXPECT_NE(NotesOf(t).find("their interval is not"), std::string::npos) << NotesOf(t);
}

TEST(GpuLogShapes, CrlfEpochTimesAndMemoryWithoutUnitsInMiB) {
  std::string csv = "timestamp,gpu_utilization,memory_used,memory_total\r\n"
                    "1746556382.8348258,0, 0, 15360\r\n"
                    "1746556383.3749516,3, 326, 15360\r\n"
                    "1746556383.9115486,69, 1070, 15360\r\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu_usage.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{0, 3, 69}));
  const CounterSeries* used = Find(t, "gpu0_mem_used_bytes");
  ASSERT_NE(used, nullptr);
  EXPECT_EQ(used->value, (std::vector<double>{0, 326 * kMiB, 1070 * kMiB}));
  EXPECT_EQ(Find(t, "gpu0_mem_total_bytes")->value[0], 15360 * kMiB);  // a 16 GB T4 in MiB
  EXPECT_NEAR(double(used->ts_ns[1] - used->ts_ns[0]), 540125800, 1000);
  EXPECT_FALSE(t.workers[0].sample_times_assumed);
  EXPECT_TRUE(t.diagnostics.empty()) << NotesOf(t);
}

TEST(GpuLogShapes, MemoryWithoutUnitsTooLargeForMiBIsBytes) {
  Trace t;
  ASSERT_TRUE(ImportText("timestamp,util,memory_used,memory_total\n1,50,4194304,16106127360\n2,50,1073741824,16106127360\n",
                         "g.csv", &t)
                  .ok());
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value, (std::vector<double>{4194304, 1073741824}));
  EXPECT_EQ(Find(t, "gpu0_mem_total_bytes")->value[0], 16106127360.0);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedUnit), 1u);
  // Both sides: the largest GPU in MiB stays MiB.
  Trace mib;
  ASSERT_TRUE(ImportText("timestamp,memory_used,memory_total\n1,4,16777216\n", "g.csv", &mib).ok());
  EXPECT_EQ(Find(mib, "gpu0_mem_total_bytes")->value[0], 16777216 * kMiB);
  EXPECT_EQ(mib.diagnostics.count(ImportIssue::kAssumedUnit), 0u);
}

// A home-made monitor: Date and Time columns, spelled-out names, every row in one second.
TEST(GpuLogShapes, DateTimeColumnsSpelledOutNamesAndOneSecondForAllRows) {
  std::string csv = "Date,Time,Temperature,Power Used, Power Max,Fan,Utilization,Memory Used,Memory Max\n";
  for (int i = 0; i < 5; ++i) csv += "04-03-2021,13:32:39,58,1,250,0,0,0,11019\n";
  Trace t;
  Status st = ImportText(csv, "gpu_log.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  const CounterSeries* util = Find(t, "gpu0_util_pct");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->value.size(), 5u);
  EXPECT_EQ(Find(t, "gpu0_power_w")->value[0], 1);
  EXPECT_EQ(Find(t, "gpu0_power_limit_w")->value[0], 250);
  EXPECT_EQ(Find(t, "gpu0_temp_celsius")->value[0], 58);
  EXPECT_EQ(Find(t, "gpu0_mem_total_bytes")->value[0], 11019 * kMiB);
  EXPECT_EQ(Find(t, "gpu1_util_pct"), nullptr);  // no GPU column: one GPU, not five
  int64_t day;
  ASSERT_EQ(csv::ParseTimestamp("2021-03-04 13:32:39", &day), TimeParse::kOk);
  // The five rows of one second are spread over it: 200 ms apart.
  EXPECT_EQ(util->ts_ns[0], day);
  EXPECT_EQ(util->ts_ns[1] - util->ts_ns[0], 200000000);
  EXPECT_EQ(util->ts_ns[4] - util->ts_ns[0], 800000000);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kSharedTimestamp), 5u);
  EXPECT_NE(NotesOf(t).find("5 rows share a time"), std::string::npos) << NotesOf(t);
  EXPECT_TRUE(t.workers[0].sample_times_assumed);  // all in one second: the spacing is ours
}

TEST(GpuLogShapes, RowsSharingASecondAreSpreadUpToTheNextOne) {
  std::string csv = "time,utilization\n10:00:00,10\n10:00:00,20\n10:00:01,30\n10:00:01,40\n10:00:02,50\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  const CounterSeries* u = Find(t, "gpu0_util_pct");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->value, (std::vector<double>{10, 20, 30, 40, 50}));
  std::vector<int64_t> rel;
  for (int64_t ts : u->ts_ns) rel.push_back(ts - u->ts_ns[0]);
  EXPECT_EQ(rel, (std::vector<int64_t>{0, 500000000, 1000000000, 1500000000, 2000000000}));
  EXPECT_EQ(u->ts_ns[0], 36000LL * 1000000000);  // a time of day alone: seconds since midnight
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kSharedTimestamp), 4u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);  // no date: the log's own timeline
  EXPECT_FALSE(t.workers[0].sample_times_assumed);  // three seconds: times to the second
}

// Eight GPUs whose `index` column reads 0 on every row while `gpu` numbers them.
std::string MislabelledIndexLog(int gpus, int polls) {
  std::string s = "timestamp,gpu,index,memory.used,memory.total,power.draw,temperature.gpu\n";
  for (int p = 0; p < polls; ++p)
    for (int g = 0; g < gpus; ++g)
      s += "2025-09-08T17:26:5" + std::to_string(p) + "+08:00," + std::to_string(g) + ", 0, 4, 81559, " +
           std::to_string(72 + g) + ".5, 33\n";
  return s;
}

TEST(GpuLogShapes, ConstantIndexColumnDoesNotCollapseGpus) {
  Trace t;
  ASSERT_TRUE(ImportText(MislabelledIndexLog(8, 5), "nvidia_smi.csv", &t).ok());
  for (int g = 0; g < 8; ++g) {
    const CounterSeries* p = Find(t, "gpu" + std::to_string(g) + "_power_w");
    ASSERT_NE(p, nullptr) << g;
    EXPECT_EQ(p->value, std::vector<double>(5, 72 + g + 0.5)) << g;
    EXPECT_EQ(p->ts_ns[1] - p->ts_ns[0], 1000000000) << g;  // one sample per second, not eight
    EXPECT_EQ(Find(t, "gpu" + std::to_string(g) + "_mem_used_bytes")->value[0], 4 * kMiB);
  }
  EXPECT_EQ(Find(t, "gpu8_power_w"), nullptr);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kGpuAttribution), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kSharedTimestamp), 0u);
  EXPECT_NE(NotesOf(t).find("the `index` column does not tell the GPUs apart: up to 8 rows share a time (it reads 0 "
                            "on every row); GPUs told apart by the `gpu` column"),
            std::string::npos)
      << NotesOf(t);
}

TEST(GpuLogShapes, GpusWithoutAnIndexToldApartByPositionAtEachTime) {
  std::string csv = "timestamp, name, utilization.gpu [%]\n";
  for (int p = 0; p < 3; ++p)
    csv += "2024/01/15 10:00:0" + std::to_string(p) + ".000, NVIDIA A100, 90 %\n" + "2024/01/15 10:00:0" +
           std::to_string(p) + ".000, NVIDIA A100, 5 %\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{90, 90, 90}));
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{5, 5, 5}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kGpuAttribution), 1u);
  EXPECT_NE(NotesOf(t).find("position"), std::string::npos) << NotesOf(t);
}

TEST(GpuLogShapes, UuidTellsGpusApartWhereTheIndexIsConstant) {
  std::string csv = "timestamp, index, uuid, utilization.gpu [%]\n";
  for (int p = 0; p < 3; ++p)
    csv += "2024/01/15 10:00:0" + std::to_string(p) + ".000, 0, GPU-bbbb, 10 %\n" + "2024/01/15 10:00:0" +
           std::to_string(p) + ".000, 0, GPU-aaaa, 80 %\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{10, 10, 10}));  // numbered as they appear
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{80, 80, 80}));
  EXPECT_NE(NotesOf(t).find("told apart by the `uuid` column"), std::string::npos) << NotesOf(t);
}

TEST(GpuLogShapes, ARightIndexNeedsNoNote) {
  std::string csv = "timestamp, index, name, utilization.gpu [%]\n";
  for (int p = 0; p < 3; ++p)
    for (int g = 0; g < 2; ++g)
      csv += "2024/01/15 10:00:0" + std::to_string(p) + ".000, " + std::to_string(g) + ", NVIDIA A100, 50 %\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value.size(), 3u);
  EXPECT_TRUE(t.diagnostics.empty()) << NotesOf(t);
}

TEST(GpuLogShapes, RowsWithoutTimesUseTheIndexColumnThatVaries) {
  std::string csv = "gpu, index, utilization.gpu [%]\n0, 0, 90 %\n1, 0, 10 %\n0, 0, 92 %\n1, 0, 12 %\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "gpu.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{90, 92}));
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{10, 12}));
  EXPECT_EQ(Find(t, "gpu0_util_pct")->ts_ns, Find(t, "gpu1_util_pct")->ts_ns);  // one poll holds both
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kGpuAttribution), 1u);
}

}  // namespace
}  // namespace stepdoctor
