// nvidia-smi CSV logs written without a header row (`--format=csv,noheader[,nounits]`), whose
// columns are told from their values (importers/samples/gpu_csv_headerless), and logs without a
// GPU column whose rows come in bursts, one row per GPU (importers/samples/gpu_row_placer).
#include "stepdoctor/importers/samples/gpu_csv_headerless.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::NotesOf;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }
constexpr double kMiB = 1024.0 * 1024.0;

std::vector<double> InMiB(const CounterSeries* c) {
  std::vector<double> out;
  for (double v : c->value) out.push_back(v / kMiB);
  return out;
}

// The shape of `--query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used,
// memory.free,temperature.gpu,power.draw --format=csv,noheader -l 5`.
TEST(GpuCsvHeaderless, UnitsReadInQueryOrderWithUsedAndFreeFromTheirConstantSum) {
  std::string csv = "2026/04/25 16:06:06.780, 0 %, 0 %, 2 MiB, 20146 MiB, 27, 11.64 W\n"
                    "2026/04/25 16:06:11.788, 44 %, 3 %, 1949 MiB, 18199 MiB, 30, 60.5 W\n"
                    "2026/04/25 16:06:16.805, 2 %, 1 %, 20137 MiB, 11 MiB, 31, 80.25 W\n";
  Trace t;
  Status st = ImportText(csv, "plato.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_NE(Find(t, "gpu0_util_pct"), nullptr) << NotesOf(t);
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{0, 44, 2}));
  EXPECT_EQ(Find(t, "gpu0_mem_util_pct")->value, (std::vector<double>{0, 3, 1}));
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_used_bytes")), (std::vector<double>{2, 1949, 20137}));
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_total_bytes")), (std::vector<double>{20148, 20148, 20148}));  // used + free
  EXPECT_EQ(Find(t, "gpu0_temp_celsius")->value, (std::vector<double>{27, 30, 31}));
  EXPECT_EQ(Find(t, "gpu0_power_w")->value, (std::vector<double>{11.64, 60.5, 80.25}));
  const auto& ts = Find(t, "gpu0_util_pct")->ts_ns;
  EXPECT_EQ(ts[1] - ts[0], 5008000000);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedUnit), 1u);
  EXPECT_NE(NotesOf(t).find("plato.csv: no header row: columns read as 1 timestamp, 2 utilization.gpu (first %), 3 "
                            "utilization.memory (second %), 4 memory.used and 5 memory.free (their sum is constant at "
                            "20148 MiB; the first taken as used, nvidia-smi's order), 6 temperature.gpu"),
            std::string::npos)
      << NotesOf(t);
  EXPECT_NE(NotesOf(t).find("7 power.draw (first W)"), std::string::npos) << NotesOf(t);
}

// The other side: a sum that varies is no used + free pair, so the second column is not free.
TEST(GpuCsvHeaderless, MemoryColumnsWhoseSumVariesAreNotUsedAndFree) {
  std::string csv = "2026/04/25 16:06:06.780, 0 %, 2 MiB, 20146 MiB\n"
                    "2026/04/25 16:06:11.788, 44 %, 1949 MiB, 18199 MiB\n"
                    "2026/04/25 16:06:16.805, 2 %, 5000 MiB, 10000 MiB\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "g.csv", &t).ok());
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_used_bytes")), (std::vector<double>{2, 1949, 5000}));
  EXPECT_EQ(Find(t, "gpu0_mem_total_bytes"), nullptr);
  EXPECT_EQ(NotesOf(t).find("memory.free"), std::string::npos) << NotesOf(t);
  EXPECT_NE(NotesOf(t).find("3 memory.used (the memory column left), 4 unread"), std::string::npos) << NotesOf(t);
}

TEST(GpuCsvHeaderless, AConstantMemoryColumnAtOrAboveTheOthersIsTheTotal) {
  std::string csv = "2026/04/25 16:06:06.780, 5 %, 81920 MiB, 100 MiB\n"
                    "2026/04/25 16:06:07.780, 6 %, 81920 MiB, 4000 MiB\n";
  Trace t;
  ASSERT_TRUE(ImportText(csv, "g.csv", &t).ok());
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_total_bytes")), (std::vector<double>{81920, 81920}));
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_used_bytes")), (std::vector<double>{100, 4000}));
  EXPECT_NE(NotesOf(t).find("3 memory.total (constant at 81920 MiB"), std::string::npos) << NotesOf(t);
}

// A unitless column between unit columns is the temperature only after a % utilisation.
TEST(GpuCsvHeaderless, UnitlessColumnIsTemperatureOnlyAfterAUtilisation) {
  Trace t;
  ASSERT_TRUE(ImportText("2026/04/25 16:06:06.780, 2 MiB, 27, 11.64 W\n2026/04/25 16:06:07.780, 3 MiB, 28, 12 W\n",
                         "g.csv", &t)
                  .ok());
  EXPECT_EQ(Find(t, "gpu0_temp_celsius"), nullptr);
  EXPECT_NE(NotesOf(t).find("3 unread"), std::string::npos) << NotesOf(t);
}

// `--format=csv,noheader,nounits` with timestamp,utilization.gpu,memory.used: the narrow shape
// read by nvidia-smi's usual order.
TEST(GpuCsvHeaderless, NoUnitsTimeUtilisationMemory) {
  std::string csv = "2025/09/08 14:14:37.120, 5, 11409\n"
                    "2025/09/08 14:14:38.120, 97, 11500\n"
                    "2025/09/08 14:14:39.120, 0, 2\n";
  Trace t;
  Status st = ImportText(csv, "llama.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{5, 97, 0}));
  EXPECT_EQ(InMiB(Find(t, "gpu0_mem_used_bytes")), (std::vector<double>{11409, 11500, 2}));
  EXPECT_NE(NotesOf(t).find("2 utilization.gpu (values 0..100 right after the time"), std::string::npos) << NotesOf(t);
  EXPECT_NE(NotesOf(t).find("3 memory.used (values up to 11500"), std::string::npos) << NotesOf(t);
}

TEST(GpuCsvHeaderless, NoUnitsWithACyclingIndexColumn) {
  std::string csv = "2025/09/08 14:14:37.120, 0, 5, 11409\n"
                    "2025/09/08 14:14:37.120, 1, 60, 10851\n"
                    "2025/09/08 14:14:38.120, 0, 7, 11409\n"
                    "2025/09/08 14:14:38.120, 1, 61, 10900\n";
  Trace t;
  Status st = ImportText(csv, "g.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, (std::vector<double>{5, 7}));
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{60, 61}));
  EXPECT_EQ(InMiB(Find(t, "gpu1_mem_used_bytes")), (std::vector<double>{10851, 10900}));
  EXPECT_NE(NotesOf(t).find("2 index (whole numbers cycling 0..1)"), std::string::npos) << NotesOf(t);
}

// One unitless column more than the narrow shape: nothing tells temperature from utilisation.
TEST(GpuCsvHeaderless, NoUnitsWithMoreColumnsIsRefusedInOneLine) {
  Trace t;
  Status st = ImportText("2025/09/08 14:14:37.120, 5, 3, 11409\n2025/09/08 14:14:38.120, 6, 3, 11409\n", "wide.csv", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kUnknownFormat);
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  EXPECT_NE(st.message().find("wide.csv: the CSV has no header row and its columns cannot be told from the values"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("add the header line of the --query-gpu fields"), std::string::npos) << st.message();
}

TEST(GpuCsvHeaderless, RefusalExitsTwoThroughTheCli) {
  std::string dir = testing::MakeTempDir("headerless");
  std::string path = dir + "/wide.csv";
  std::ofstream(path) << "2025/09/08 14:14:37.120, 5, 3, 11409\n2025/09/08 14:14:38.120, 6, 3, 11409\n";
  testing::CliResult r = testing::RunCli("diagnose " + path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("wide.csv: the CSV has no header row"), std::string::npos) << r.err;
}

TEST(GpuCsvHeaderless, HeaderRowsAndTextAreNotRowsOfValues) {
  EXPECT_FALSE(gpucsv::LooksLikeHeaderlessRow({"timestamp", " utilization.gpu [%]"}));
  EXPECT_FALSE(gpucsv::LooksLikeHeaderlessRow({"step", "loss"}));
  EXPECT_FALSE(gpucsv::LooksLikeHeaderlessRow({"2026/04/25 16:06:06.780"}));
  EXPECT_TRUE(gpucsv::LooksLikeHeaderlessRow({"2026/04/25 16:06:06.780", " NVIDIA A100-SXM4-40GB", " 0 %"}));
  EXPECT_TRUE(gpucsv::LooksLikeHeaderlessRow({"GPU-5a1c", " 00000000:07:00.0", " [N/A]", " 12 W"}));
}

// Rows of one poll a millisecond apart, polls a second apart, no GPU column: llama.cpp's
// `timestamp, utilization.gpu, memory.used` log of four GPUs.
std::string Bursts(const std::vector<int>& sizes, double within_s) {
  std::string csv = "timestamp, utilization.gpu [%], memory.used [MiB]\n";
  for (size_t poll = 0; poll < sizes.size(); ++poll)
    for (int k = 0; k < sizes[poll]; ++k)
      csv += fmt::format("{:.3f}, {} %, {} MiB\n", 1000.0 + double(poll) + within_s * k, 10 * k + int(poll), 1000 * (k + 1));
  return csv;
}

TEST(GpuRowBursts, RowsInBurstsOfFourAreFourGpus) {
  Trace t;
  Status st = ImportText(Bursts({4, 4, 4}, 0.001), "stats.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  for (int g = 0; g < 4; ++g) {
    const CounterSeries* u = Find(t, "gpu" + std::to_string(g) + "_util_pct");
    ASSERT_NE(u, nullptr) << g << NotesOf(t);
    EXPECT_EQ(u->value, (std::vector<double>{10.0 * g, 10.0 * g + 1, 10.0 * g + 2})) << g;
    EXPECT_EQ(InMiB(Find(t, "gpu" + std::to_string(g) + "_mem_used_bytes")), std::vector<double>(3, 1000.0 * (g + 1)));
  }
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kGpuAttribution), 1u);
  EXPECT_NE(NotesOf(t).find("rows come in bursts of 4"), std::string::npos) << NotesOf(t);
  EXPECT_NE(NotesOf(t).find("read as 4 GPUs polled one after another"), std::string::npos) << NotesOf(t);
}

// The same log without its header or units (`--format=csv,noheader,nounits`), as llama.cpp
// writes it: its columns are told from the values, its GPUs from the bursts.
TEST(GpuRowBursts, HeaderlessNoUnitsBurstsAreFourGpus) {
  std::string csv;
  for (int poll = 0; poll < 3; ++poll)
    for (int k = 0; k < 4; ++k)
      csv += fmt::format("2025/09/08 14:14:3{}.{:03d}, {}, {}\n", 7 + poll, 120 + k, k + poll, 10851 + 100 * k);
  Trace t;
  Status st = ImportText(csv, "gpu_stats.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_NE(Find(t, "gpu3_util_pct"), nullptr) << NotesOf(t);
  EXPECT_EQ(Find(t, "gpu3_util_pct")->value, (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(InMiB(Find(t, "gpu2_mem_used_bytes")), std::vector<double>(3, 11051));
  EXPECT_NE(NotesOf(t).find("rows come in bursts of 4"), std::string::npos) << NotesOf(t);
}

// Two GPUs polled every 104 ms, their rows mostly 2 ms apart but now and then 5-110 ms apart (or
// at one time): nvidia-smi's timing jitter, as in a public Titan X log. Still two GPUs, each row
// the right one's (GPU 1 reads 17 W, GPU 0 19 W).
TEST(GpuRowBursts, JitteredBurstsAreStillTwoGpus) {
  std::string csv = "timestamp, power.draw [W], utilization.gpu [%], memory.used [MiB]\n";
  double at = 1000.0;
  for (int poll = 0; poll < 120; ++poll) {
    const double within = poll % 60 == 7    ? 0.110
                          : poll % 60 == 3  ? 0.021
                          : poll % 11 == 5  ? 0.0
                          : poll % 13 == 2  ? 0.004
                                            : 0.002;
    csv += fmt::format("{:.3f}, 19.0 W, 50 %, 1000 MiB\n", at);
    csv += fmt::format("{:.3f}, 17.0 W, 60 %, 2000 MiB\n", at + within);
    at = std::max(at + 0.104, at + within + 0.1);  // a late row delays the next poll
  }
  Trace t;
  ASSERT_TRUE(ImportText(csv, "power.csv", &t).ok());
  ASSERT_NE(Find(t, "gpu1_util_pct"), nullptr) << NotesOf(t);
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value, std::vector<double>(120, 50.0));
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, std::vector<double>(120, 60.0));
  EXPECT_NE(NotesOf(t).find("rows come in bursts of 2"), std::string::npos) << NotesOf(t);
}

TEST(GpuRowBursts, EvenGapsAreOneGpu) {
  Trace t;
  ASSERT_TRUE(ImportText(Bursts({1, 1, 1, 1, 1, 1}, 0.001), "stats.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 6u);
  EXPECT_EQ(Find(t, "gpu1_util_pct"), nullptr);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kGpuAttribution), 0u);
}

TEST(GpuRowBursts, IrregularBurstsAreOneGpu) {
  Trace t;
  ASSERT_TRUE(ImportText(Bursts({4, 3, 4, 4}, 0.001), "stats.csv", &t).ok());
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 15u);
  EXPECT_EQ(Find(t, "gpu1_util_pct"), nullptr);
  // Gaps within a burst over 5% of those between: not bursts either.
  Trace wide;
  ASSERT_TRUE(ImportText(Bursts({4, 4, 4}, 0.1), "stats.csv", &wide).ok());
  EXPECT_EQ(Find(wide, "gpu1_util_pct"), nullptr);
}

// A logger's `memory_util` that equals used / total on every row is the share of memory used,
// not nvidia-smi's utilization.memory (the time memory was read or written); one that does not
// stays memory activity.
TEST(GpuCsvHeaderless, MemoryUtilEqualToUsedShareIsTheShareBothSides) {
  auto series_of = [](bool share) {
    std::string csv = "timestamp,gpu_util,memory_used_mb,memory_total_mb,memory_util\n";
    for (int i = 0; i < 6; ++i) {
      const double used = 4000 + 100 * i, total = 46068;
      const double util = share ? 100.0 * used / total : 30 + i;
      csv += fmt::format("{},{},{},{},{:.2f}\n", 1700000000 + i, 50, used, total, util);
    }
    Trace t;
    EXPECT_TRUE(testing::ImportText(csv, "gpu_stats.csv", &t).ok());
    std::string names;
    for (const auto& c : t.counters) names += c.name + " ";
    return names;
  };
  EXPECT_NE(series_of(true).find("gpu0_mem_used_pct"), std::string::npos) << series_of(true);
  EXPECT_EQ(series_of(true).find("gpu0_mem_util_pct"), std::string::npos) << series_of(true);
  EXPECT_NE(series_of(false).find("gpu0_mem_util_pct"), std::string::npos) << series_of(false);
}

}  // namespace
}  // namespace stepdoctor
