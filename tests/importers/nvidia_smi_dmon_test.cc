// `nvidia-smi dmon` logs: with and without the -o DT time columns, a repeated header, `-`
// values, rows with the wrong number of fields, -o T across midnight, and --format csv.
#include <gtest/gtest.h>

#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::AnyNoteContains;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }
constexpr double kMiB = 1024.0 * 1024.0;

const char* kHeader =
    "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"
    "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n";

// One row of the header's 22 columns.
std::string Row(int gpu, const std::string& pwr, int sm, int mem, int pclk, int fb, int rx, int tx) {
  return "    " + std::to_string(gpu) + "     " + pwr + "     50      -     " + std::to_string(sm) + "     " +
         std::to_string(mem) + "      0      0      0      0    405    " + std::to_string(pclk) + "    100      0     " +
         std::to_string(fb) + "      3      0      -      -      0    " + std::to_string(rx) + "    " +
         std::to_string(tx) + " \n";
}

TEST(NvidiaSmiDmon, TwoGpusWithoutTimeColumns) {
  std::string log = std::string(kHeader) + Row(0, "21", 90, 40, 1410, 38000, 325, 21) + Row(1, "14", 0, 0, 210, 15, 0, 0) +
                    Row(0, "22", 92, 41, 1410, 38000, 300, 20) + Row(1, "-", 0, 0, 210, 15, 0, 0) +  // pwr unknown
                    std::string(kHeader) +                                                             // repeated
                    Row(0, "23", 94, 42, 1410, 38001, 310, 22) + "    1     14     52\n" +               // too few fields
                    Row(1, "15", 1, 0, 210, 15, 0, 0);
  Trace t;
  InputFormat f;
  Status st = ImportText(log, "gpu_monitor.log", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kNvidiaSmiDmon);
  EXPECT_EQ(t.format, "nvidia-smi dmon");
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  const CounterSeries* u1 = Find(t, "gpu1_util_pct");
  ASSERT_NE(u0, nullptr);
  ASSERT_NE(u1, nullptr);
  EXPECT_EQ(u0->value, (std::vector<double>{90, 92, 94}));
  EXPECT_EQ(u1->value, (std::vector<double>{0, 0, 1}));
  // One poll per GPU, polls 1 s apart; GPU 1's third row is its third poll, the short row skipped.
  EXPECT_EQ(u0->ts_ns, (std::vector<int64_t>{0, 1000000000, 2000000000}));
  EXPECT_EQ(u1->ts_ns, u0->ts_ns);
  EXPECT_EQ(Find(t, "gpu0_mem_util_pct")->value, (std::vector<double>{40, 41, 42}));
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value[2], 38001 * kMiB);
  EXPECT_EQ(Find(t, "gpu0_sm_clock_mhz")->value[0], 1410);
  EXPECT_EQ(Find(t, "gpu0_temp_celsius")->value[0], 50);
  EXPECT_EQ(Find(t, "gpu0_pcie_rx_bytes_per_s")->value[0], 325 * kMiB);
  EXPECT_EQ(Find(t, "gpu0_pcie_tx_bytes_per_s")->value[0], 21 * kMiB);
  EXPECT_EQ(Find(t, "gpu1_power_w")->value, (std::vector<double>{14, 15}));  // the `-` skipped
  EXPECT_TRUE(AnyNoteContains(t, "1 value(s) written \"-\"")) << t.diagnostics.notes().size();
  EXPECT_TRUE(AnyNoteContains(t, "column(s) pwr"));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "1 of 7 rows have a different number of fields than the header"));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "rows assumed 1 s apart per GPU"));
  EXPECT_TRUE(t.workers[0].sample_times_assumed);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 0u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 0u);
}

TEST(NvidiaSmiDmon, DateTimeColumnsTimeTheRows) {
  std::string log =
      "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   bar1\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz     MB     MB\n"
      " 20240630   00:23:37      0     68     26      -     80     30      0      0   1593   1410  23055      5\n"
      " 20240630   00:23:37      1     60     30      -      0      0      0      0   1593    210     15      2\n"
      " 20240630   00:23:38      0     69     26      -     82     31      0      0   1593   1410  23055      5\n"
      " 20240630   00:23:38      1     61     30      -      0      0      0      0   1593    210     15      2\n"
      "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   bar1\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz     MB     MB\n"
      " 20240630   00:23:39      0     70     27      -    oops     32      0      0   1593   1410  23055      5\n"
      " 20240630   00:23:39      1     61     30      -      0      0      0      0   1593    210     15      2\n";
  Trace t;
  InputFormat f;
  Status st = ImportText(log, "dmon_dt.log", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kNvidiaSmiDmon);
  int64_t t0 = 0;
  ASSERT_EQ(csv::ParseTimestamp("2024-06-30 00:23:37", &t0), TimeParse::kOk);
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  const CounterSeries* p1 = Find(t, "gpu1_power_w");
  ASSERT_NE(u0, nullptr);
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(u0->value, (std::vector<double>{80, 82}));  // "oops" counted, skipped
  EXPECT_EQ(u0->ts_ns, (std::vector<int64_t>{t0, t0 + 1000000000}));
  EXPECT_EQ(p1->ts_ns, (std::vector<int64_t>{t0, t0 + 1000000000, t0 + 2000000000}));
  EXPECT_EQ(Find(t, "gpu0_power_w")->value, (std::vector<double>{68, 69, 70}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 0u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kSharedTimestamp), 0u);  // two GPUs at one time is not sharing
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
  EXPECT_FALSE(t.workers[0].sample_times_assumed);
}

TEST(NvidiaSmiDmon, TimeOfDayColumnCrossesMidnight) {
  std::string log = "#Time        gpu    pwr     sm\n"
                    "#HH:MM:SS    Idx      W      %\n"
                    " 23:59:59      0     68     10\n"
                    " 00:00:00      0     69     11\n";
  Trace t;
  ASSERT_TRUE(ImportText(log, "dmon_t.log", &t).ok());
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  ASSERT_NE(u0, nullptr);
  ASSERT_EQ(u0->ts_ns.size(), 2u);
  EXPECT_EQ(u0->ts_ns[1] - u0->ts_ns[0], 1000000000);
  EXPECT_TRUE(AnyNoteContains(t, "times of day without a date"));
}

TEST(NvidiaSmiDmon, CutLastRowIsCountedAsTheCut) {
  std::string log = std::string(kHeader) + Row(0, "21", 90, 40, 1410, 38000, 325, 21) + "    1     14     52";
  Trace t;
  ASSERT_TRUE(ImportText(log, "cut_dmon.log", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
}

TEST(NvidiaSmiDmon, CommaSeparatedFields) {
  std::string log = "#gpu, pwr, gtemp, sm, mem\n#Idx, W, C, %, %\n 0, 68, 26, 80, 30\n 1, 60, 30, 0, 0\n";
  Trace t;
  InputFormat f;
  ASSERT_TRUE(ImportText(log, "dmon.csv", &t, &f).ok());
  EXPECT_EQ(f, InputFormat::kNvidiaSmiDmon);
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{80}));
  EXPECT_FALSE(AnyNoteContains(t, "before the first dmon header"));
  Trace echoed;  // a job log's echo above the header is skipped and noted
  ASSERT_TRUE(ImportText("+ nvidia-smi dmon -d 5\n" + log, "job.log", &echoed).ok());
  EXPECT_TRUE(AnyNoteContains(echoed, "1 line(s) before the first dmon header skipped"));
  EXPECT_EQ(Find(echoed, "gpu0_util_pct")->ts_ns.size(), 1u);
  EXPECT_TRUE(AnyNoteContains(echoed, "rows taken 5 s apart per GPU (dmon -d)"));
  EXPECT_EQ(Find(t, "gpu1_power_w")->value, (std::vector<double>{60}));
}

// dmon restarted with other -s options: each row is read by the header above it (the rows
// before the second header are still held back when it is read), and a header that moves the
// gpu column heads rows that are skipped and counted.
TEST(NvidiaSmiDmon, RepeatedHeaderWithOtherColumnsReadsEachRowByItsOwnHeader) {
  std::string log = "# gpu    pwr     sm\n# Idx      W      %\n"
                    "    0     68     80\n    1     60      0\n"
                    "# gpu     sm     fb\n# Idx      %     MB\n"
                    "    0     81    100\n    1      1    200\n"
                    "#Time        gpu     sm\n#HH:MM:SS    Idx      %\n"
                    " 10:00:00      0     99\n";
  Trace t;
  Status st = ImportText(log, "restarted.log", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{80, 81}));
  EXPECT_EQ(Find(t, "gpu0_power_w")->value, (std::vector<double>{68}));
  EXPECT_EQ(Find(t, "gpu1_mem_used_bytes")->value, (std::vector<double>{200 * kMiB}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 0u);
  EXPECT_TRUE(AnyNoteContains(t, "1 row(s) under a repeated header that moves the gpu column"));
}

TEST(NvidiaSmiDmon, HeaderWithoutRowsIsRefused) {
  Trace t;
  Status st = ImportText(kHeader, "header_only.log", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(st.message().find("header_only.log"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace stepdoctor
