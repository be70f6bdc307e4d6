// nvidia-smi's default table printed again and again: both driver layouts, N/A, the Processes
// box, snapshots without date lines, a cut last snapshot, a table with no GPU, and the verdict
// it gives next to a CSV log of the same figures.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/importers/samples/csv_fields.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::AnyNoteContains;
const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }
constexpr double kMiB = 1024.0 * 1024.0;

int64_t TableDate(const std::string& line) {
  int64_t ns = 0;
  EXPECT_TRUE(csv::ParseTableDate(line, &ns)) << line;
  return ns;
}

// One GPU of the 555 driver's layout.
std::string ModernGpu(int index, const std::string& temp, const std::string& power, const std::string& mem,
                      const std::string& util) {
  return "|   " + std::to_string(index) + "  NVIDIA A100-SXM4-80GB          On  |   00000000:CA:00.0 Off |                    0 |\n"
         "| N/A   " + temp + "    P0            " + power + " |   " + mem + " |      " + util + "      Default |\n"
         "|                                         |                        |             Disabled |\n"
         "+-----------------------------------------+------------------------+----------------------+\n";
}

std::string ModernBanner() {
  return "+-----------------------------------------------------------------------------------------+\n"
         "| NVIDIA-SMI 555.42.02              Driver Version: 555.42.02      CUDA Version: 12.5     |\n"
         "|-----------------------------------------+------------------------+----------------------+\n"
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
         "|                                         |                        |               MIG M. |\n"
         "|=========================================+========================+======================|\n";
}

std::string ModernProcesses(const std::string& rows) {
  return "                                                                                         \n"
         "+-----------------------------------------------------------------------------------------+\n"
         "| Processes:                                                                              |\n"
         "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
         "|        ID   ID                                                               Usage      |\n"
         "|=========================================================================================|\n" +
         rows + "+-----------------------------------------------------------------------------------------+\n";
}

std::string ProcessRow(int gpu, int pid, const std::string& mem) {
  return "|    " + std::to_string(gpu) + "   N/A  N/A   " + std::to_string(pid) +
         "      C   python                                      " + mem + " |\n";
}

// Two snapshots, 61 s apart, of two A100s: GPU 0 holds memory at 0%, GPU 1 works.
std::string ModernLog() {
  std::string s;
  s += "Sun Jun 30 00:23:37 2024       \n" + ModernBanner() + ModernGpu(0, "26C", " 68W /  500W", "23055MiB /  81920MiB", "0%") +
       ModernGpu(1, "41C", "301W /  500W", "40000MiB /  81920MiB", "97%") +
       ModernProcesses(ProcessRow(0, 1540605, "23044MiB") + ProcessRow(1, 1540606, "20000MiB") +
                       ProcessRow(1, 1540607, "19000MiB"));
  s += "Sun Jun 30 00:24:38 2024       \n" + ModernBanner() + ModernGpu(0, "27C", " 69W /  500W", "23055MiB /  81920MiB", "0%") +
       ModernGpu(1, "43C", "310W /  500W", "41000MiB /  81920MiB", "95%") +
       ModernProcesses(ProcessRow(0, 1540605, "23044MiB") + ProcessRow(1, 1540606, "21000MiB") +
                       ProcessRow(1, 1540607, "19000MiB"));
  return s;
}

TEST(NvidiaSmiTable, ModernLayoutTwoSnapshotsTwoGpus) {
  Trace t;
  InputFormat f;
  Status st = ImportText(ModernLog(), "gpu.log", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kNvidiaSmiTable);
  EXPECT_EQ(t.format, "nvidia-smi table");
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  const CounterSeries* u1 = Find(t, "gpu1_util_pct");
  ASSERT_NE(u0, nullptr);
  ASSERT_NE(u1, nullptr);
  EXPECT_EQ(u0->value, (std::vector<double>{0, 0}));
  EXPECT_EQ(u1->value, (std::vector<double>{97, 95}));
  const int64_t t0 = TableDate("Sun Jun 30 00:23:37 2024");
  EXPECT_EQ(u0->ts_ns, (std::vector<int64_t>{t0, t0 + 61000000000}));
  EXPECT_EQ(u1->ts_ns, u0->ts_ns);
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value, (std::vector<double>{23055 * kMiB, 23055 * kMiB}));
  EXPECT_EQ(Find(t, "gpu1_mem_used_bytes")->value, (std::vector<double>{40000 * kMiB, 41000 * kMiB}));
  EXPECT_EQ(Find(t, "gpu1_mem_total_bytes")->value[0], 81920 * kMiB);
  EXPECT_EQ(Find(t, "gpu1_power_w")->value, (std::vector<double>{301, 310}));
  EXPECT_EQ(Find(t, "gpu0_power_limit_w")->value[0], 500);
  EXPECT_EQ(Find(t, "gpu0_temp_celsius")->value, (std::vector<double>{26, 27}));
  // The Processes box, summed per GPU.
  EXPECT_EQ(Find(t, "gpu0_proc_mem_bytes")->value, (std::vector<double>{23044 * kMiB, 23044 * kMiB}));
  EXPECT_EQ(Find(t, "gpu1_proc_mem_bytes")->value, (std::vector<double>{39000 * kMiB, 40000 * kMiB}));
  // The devices carry the name and memory.
  bool named = false;
  for (const Device& d : t.devices)
    if (d.kind == DeviceKind::kGpu && d.index == 1) {
      named = true;
      EXPECT_EQ(d.name, "NVIDIA A100-SXM4-80GB");
      EXPECT_EQ(d.memory_bytes, int64_t(81920 * kMiB));
    }
  EXPECT_TRUE(named);
  EXPECT_TRUE(t.diagnostics.empty());
  EXPECT_FALSE(t.workers[0].sample_times_assumed);
}

// The 418-470 drivers' narrower box: truncated names, fan %, `N/A` power and temperature, and
// the older Processes box (no GI/CI columns).
std::string OldLayoutSnapshot(const std::string& date, const std::string& util0, const std::string& mem0) {
  return date + "\n"
         "+-----------------------------------------------------------------------------+\n"
         "| NVIDIA-SMI 418.87.01    Driver Version: 418.87.01    CUDA Version: 10.1     |\n"
         "|-------------------------------+----------------------+----------------------+\n"
         "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
         "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
         "|===============================+======================+======================|\n"
         "|   0  GeForce RTX 208...  Off  | 00000000:01:00.0 Off |                  N/A |\n"
         "| 30%   45C    P2    68W / 250W |  " + mem0 + " / 11019MiB |     " + util0 + "      Default |\n"
         "+-------------------------------+----------------------+----------------------+\n"
         "|   1  GeForce RTX 208...  Off  | 00000000:02:00.0 Off |                  N/A |\n"
         "| 27%   N/A    P8    N/A /  N/A |      0MiB / 11019MiB |      0%      Default |\n"
         "+-------------------------------+----------------------+----------------------+\n"
         "\n"
         "+-----------------------------------------------------------------------------+\n"
         "| Processes:                                                       GPU Memory |\n"
         "|  GPU       PID   Type   Process name                             Usage      |\n"
         "|=============================================================================|\n"
         "|    0     12345      C   python                                      4990MiB |\n"
         "+-----------------------------------------------------------------------------+\n";
}

TEST(NvidiaSmiTable, OlderDriverLayoutNaAndTruncatedNames) {
  std::string log = OldLayoutSnapshot("Mon Jan 15 10:00:00 2024", "55%", "5000MiB") +
                    OldLayoutSnapshot("Mon Jan 15 10:00:10 2024", "ERR!", "5100MiB");
  Trace t;
  Status st = ImportText(log, "old.log", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  ASSERT_NE(u0, nullptr);
  EXPECT_EQ(u0->value, (std::vector<double>{55}));  // "ERR!" is not a number: counted, skipped
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "\"ERR!\""));
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->value, (std::vector<double>{5000 * kMiB, 5100 * kMiB}));
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes")->ts_ns[1] - Find(t, "gpu0_mem_used_bytes")->ts_ns[0], 10000000000);
  EXPECT_EQ(Find(t, "gpu0_power_w")->value, (std::vector<double>{68, 68}));
  EXPECT_EQ(Find(t, "gpu0_power_limit_w")->value[0], 250);
  EXPECT_EQ(Find(t, "gpu0_temp_celsius")->value[0], 45);
  // GPU 1's N/A temperature and power are absent, not bad; its other figures are read.
  EXPECT_EQ(Find(t, "gpu1_temp_celsius"), nullptr);
  EXPECT_EQ(Find(t, "gpu1_power_w"), nullptr);
  EXPECT_EQ(Find(t, "gpu1_power_limit_w"), nullptr);
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value, (std::vector<double>{0, 0}));
  EXPECT_EQ(Find(t, "gpu1_mem_total_bytes")->value[0], 11019 * kMiB);
  // Processes: GPU 0's python; GPU 1 lists none in a box that lists some, so it holds 0.
  EXPECT_EQ(Find(t, "gpu0_proc_mem_bytes")->value[0], 4990 * kMiB);
  EXPECT_EQ(Find(t, "gpu1_proc_mem_bytes")->value[0], 0);
  bool named = false;
  for (const Device& d : t.devices)
    if (d.kind == DeviceKind::kGpu && d.index == 0) named = d.name == "GeForce RTX 208...";
  EXPECT_TRUE(named);
}

TEST(NvidiaSmiTable, SnapshotsWithoutDateLinesAreSpacedByAnAssumedInterval) {
  std::string one = ModernBanner() + ModernGpu(0, "26C", " 68W /  500W", "100MiB /  81920MiB", "10%") +
                    ModernGpu(1, "26C", " 68W /  500W", "100MiB /  81920MiB", "20%") + ModernProcesses("");
  std::string log = one + one + one;
  Trace t;
  Status st = ImportText(log, "nodate.log", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  const CounterSeries* u1 = Find(t, "gpu1_util_pct");
  ASSERT_NE(u1, nullptr);
  EXPECT_EQ(u1->value, (std::vector<double>{20, 20, 20}));
  EXPECT_EQ(u1->ts_ns, (std::vector<int64_t>{0, 1000000000, 2000000000}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  EXPECT_TRUE(AnyNoteContains(t, "3 of 3 snapshot(s) have no date line: assumed 1 s apart")) << t.diagnostics.notes().size();
  EXPECT_TRUE(t.workers[0].sample_times_assumed);
  // A box listing no process records no process memory (it cannot tell "none" from "not visible").
  EXPECT_EQ(Find(t, "gpu0_proc_mem_bytes"), nullptr);
}

TEST(NvidiaSmiTable, WatchHeaderTimesItsSnapshots) {
  std::string one = ModernBanner() + ModernGpu(0, "26C", " 68W /  500W", "100MiB /  81920MiB", "10%") + ModernProcesses("");
  std::string log = "Every 2.0s: nvidia-smi                          node7: Sun Jun 30 00:23:37 2024\n\n" + one +
                    "Every 2.0s: nvidia-smi                          node7: Sun Jun 30 00:23:39 2024\n\n" + one;
  Trace t;
  ASSERT_TRUE(ImportText(log, "watch.log", &t).ok());
  const CounterSeries* u0 = Find(t, "gpu0_util_pct");
  ASSERT_NE(u0, nullptr);
  const int64_t t0 = TableDate("Sun Jun 30 00:23:37 2024");
  EXPECT_EQ(u0->ts_ns, (std::vector<int64_t>{t0, t0 + 2000000000}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 0u);
}

TEST(NvidiaSmiTable, CutLastSnapshotIsCountedNotCrashedOn) {
  std::string log = ModernLog() + "Sun Jun 30 00:25:39 2024       \n" + ModernBanner() +
                    ModernGpu(0, "28C", " 70W /  500W", "23055MiB /  81920MiB", "0%") +
                    "|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:CB:00.0 Off |                    0 |\n"
                    "| N/A   44C    P0            3";  // cut inside GPU 1's figures, no final newline
  Trace t;
  Status st = ImportText(log, "cut.log", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(Find(t, "gpu0_util_pct")->value.size(), 3u);  // GPU 0 of the cut snapshot is whole
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value.size(), 2u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
  EXPECT_TRUE(AnyNoteContains(t, "the last snapshot is cut (1 GPU line(s) without their figures)"));

  // Cut right after a banner: the snapshots before it stand.
  Trace b;
  ASSERT_TRUE(ImportText(ModernLog() + "Sun Jun 30 00:25:39 2024\n" + ModernBanner(), "cut2.log", &b).ok());
  EXPECT_EQ(Find(b, "gpu0_util_pct")->value.size(), 2u);
  EXPECT_EQ(b.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(NvidiaSmiTable, LinesOutsideTheTablesAreNoted) {
  Trace t;
  ASSERT_TRUE(ImportText("$ nvidia-smi\n" + ModernLog() + "$ exit\n", "session.log", &t).ok());
  EXPECT_EQ(Find(t, "gpu1_util_pct")->value.size(), 2u);
  EXPECT_TRUE(AnyNoteContains(t, "1 line(s) outside nvidia-smi's tables skipped"));
}

TEST(NvidiaSmiTable, TableWithoutGpuRowsIsRefusedInOneLineWithExit2) {
  std::string header_only = "Sun Jun 30 00:23:37 2024\n" + ModernBanner() + ModernProcesses("");
  Trace t;
  Status st = ImportText(header_only, "empty_table.log", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(st.message().find("empty_table.log"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("no GPU rows"), std::string::npos) << st.message();

  std::string p = ::testing::TempDir() + "empty_table.log";
  std::ofstream(p, std::ios::binary) << header_only;
  auto r = testing::RunCli("diagnose " + p);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("empty_table.log"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no GPU rows"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// The same figures as a table log and as an nvidia-smi CSV: GPU 0 busy (91% +-2), GPU 1 idle.
std::string IdleTableLog(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += "Sat Nov 23 12:23:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + " 2024\n" + ModernBanner() +
         ModernGpu(0, "60C", "350W /  500W", "25073MiB /  81920MiB", std::to_string(91 + (i % 2 ? 2 : -2)) + "%") +
         ModernGpu(1, "30C", " 60W /  500W", "   15MiB /  81920MiB", "0%") + ModernProcesses(ProcessRow(0, 4242, "25060MiB"));
  }
  return s;
}

std::string IdleCsvLog(int n) {
  std::string s = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], "
                  "power.limit [W], temperature.gpu\n";
  for (int i = 0; i < n; ++i) {
    std::string ts = "2024/11/23 12:23:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".000";
    s += ts + ", 0, NVIDIA A100-SXM4-80GB, " + std::to_string(91 + (i % 2 ? 2 : -2)) + " %, 25073 MiB, 81920 MiB, 350 W, 500 W, 60\n";
    s += ts + ", 1, NVIDIA A100-SXM4-80GB, 0 %, 15 MiB, 81920 MiB, 60 W, 500 W, 30\n";
  }
  return s;
}

TEST(NvidiaSmiTableVerdict, IdleGpuTableLogFindsWhatTheSameCsvFinds) {
  Trace table, csv;
  ASSERT_TRUE(ImportText(IdleTableLog(20), "table.log", &table).ok());
  ASSERT_TRUE(ImportText(IdleCsvLog(20), "gpu.csv", &csv).ok());
  Report rt = AnalyzeTrace(table);
  Report rc = AnalyzeTrace(csv);
  const Finding* idle = testing::FindFinding(rt, "idle_gpu");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->title.find("GPU 1 "), std::string::npos) << idle->title;
  ASSERT_NE(testing::FindFinding(rc, "idle_gpu"), nullptr);
  EXPECT_EQ(idle->title, testing::FindFinding(rc, "idle_gpu")->title);
  std::set<std::string> ids_t, ids_c;
  for (const Finding& f : rt.findings) ids_t.insert(f.id);
  for (const Finding& f : rc.findings) ids_c.insert(f.id);
  EXPECT_EQ(ids_t, ids_c);
  EXPECT_EQ(rt.verdict.bottleneck, rc.verdict.bottleneck);
  EXPECT_EQ(rt.verdict.summary, rc.verdict.summary);
  EXPECT_EQ(rt.verdict.summary.rfind("1 of 2 GPUs busy: 91.0% mean utilisation", 0), 0u) << rt.verdict.summary;
}

TEST(NvidiaSmiTableVerdict, CliDiagnosesATableLogLikeTheCsv) {
  std::string pt = ::testing::TempDir() + "idle_table.log", pc = ::testing::TempDir() + "idle_gpu.csv";
  std::ofstream(pt, std::ios::binary) << IdleTableLog(20);
  std::ofstream(pc, std::ios::binary) << IdleCsvLog(20);
  auto t = testing::RunCli("diagnose " + pt);
  auto c = testing::RunCli("diagnose " + pc);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(t.out.substr(0, t.out.find('\n')), c.out.substr(0, c.out.find('\n')));
  EXPECT_NE(t.out.find("idle_gpu"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("(nvidia-smi table)"), std::string::npos) << t.out;
}

// `nvidia-smi -q` prints one query's full report: a GPU's state once, not a log over time. It is
// refused with a line that names it and the logging command, not as an unknown format.
TEST(NvidiaSmiTable, QueryReportIsNamedWhenRefused) {
  const std::string q =
      "\n==============NVSMI LOG==============\n\nTimestamp                                 : Mon Mar  4 10:00:00 2024\n"
      "Driver Version                            : 535.104.05\nAttached GPUs                             : 1\n"
      "GPU 00000000:41:00.0\n    Product Name                          : NVIDIA A40\n    Utilization\n"
      "        Gpu                               : 0 %\n        Memory                            : 0 %\n";
  Trace t;
  const Status st = testing::ImportText(q, "nvidia-smi.log", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nvidia-smi.log: an `nvidia-smi -q` report"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("--query-gpu="), std::string::npos) << st.message();
}

}  // namespace
}  // namespace stepdoctor
