// NVIDIA Jetson's tegrastats log (importers/samples/tegrastats_to_trace): told from its lines
// (commas inside its CPU list do not make it a CSV), the GPU's load, power and temperature, each
// core's load and the shared RAM read per line, timed by the stamp or by the interval.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/detect_format.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;

const CounterSeries* Find(const Trace& t, const std::string& name) { return testing::FindCounter(t, name); }

// Jetson AGX Orin (JetPack 6) with stamps; the GPU at `gr3d` percent.
std::string OrinLine(int second, int gr3d) {
  return "07-21-2025 16:33:" + std::to_string(10 + second) +
         " RAM 17953/62841MB (lfb 9x4MB) SWAP 0/31420MB (cached 0MB) CPU [7%@1728,31%@1036,off,off] EMC_FREQ "
         "12%@204 GR3D_FREQ " +
         std::to_string(gr3d) +
         "%@[305,0] NVENC off APE 174 cpu@43.906C gpu@40.093C tj@43.906C VDD_GPU_SOC 2798mW/2798mW VDD_CPU_CV "
         "799mW/799mW\n";
}

TEST(Tegrastats, DetectedAndReadWithStamps) {
  std::string log;
  for (int i = 0; i < 8; ++i) log += OrinLine(i, i < 6 ? 40 : 0);
  EXPECT_EQ(DetectFormat(log, "tegrastats.log"), InputFormat::kTegrastats);
  Trace t;
  ASSERT_TRUE(ImportText(log, "tegrastats.log", &t).ok());
  const CounterSeries* util = Find(t, "gpu0_util_pct");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->value, (std::vector<double>{40, 40, 40, 40, 40, 40, 0, 0}));
  EXPECT_EQ(util->ts_ns[1] - util->ts_ns[0], 1'000'000'000);
  EXPECT_DOUBLE_EQ(Find(t, "gpu0_power_w")->value[0], 2.798);
  EXPECT_DOUBLE_EQ(Find(t, "gpu0_temp_celsius")->value[0], 40.093);
  EXPECT_DOUBLE_EQ(Find(t, "cpu_core1_pct")->value[0], 31);
  EXPECT_EQ(Find(t, "cpu_core2_pct"), nullptr);  // offline
  EXPECT_DOUBLE_EQ(Find(t, "cpu_pct_total")->value[0], 19);
  EXPECT_DOUBLE_EQ(Find(t, "mem_available_bytes")->value[0], (62841.0 - 17953.0) * 1024 * 1024);
  EXPECT_EQ(Find(t, "gpu0_mem_used_bytes"), nullptr);  // shared RAM is no GPU memory figure
  EXPECT_EQ(t.format, "tegrastats");
  const Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.verdict.summary.find("not a GPU log"), std::string::npos);
  EXPECT_NE(r.verdict.summary.find("30.0%"), std::string::npos) << r.verdict.summary;  // 6 x 40 of 8 samples
}

// An older release (TX2: "GR3D 12%@1300", POM_5V_GPU, no stamp), under its command line with
// --interval 500: lines 0.5 s apart, said to be assumed.
TEST(Tegrastats, OlderLinesWithoutStampsTakeTheInterval) {
  std::string log = "$ sudo tegrastats --interval 500\n";
  for (int i = 0; i < 4; ++i)
    log += "RAM 2212/7854MB (lfb 1x4MB) CPU [2%@345,off,off,1%@345] EMC_FREQ 0%@1600 GR3D 12%@1300 "
           "APE 150 BCPU@36C GPU@35C POM_5V_GPU 76/76 POM_5V_IN 1236/1236\n";
  EXPECT_EQ(DetectFormat(log, "tx2.txt"), InputFormat::kTegrastats);
  Trace t;
  ASSERT_TRUE(ImportText(log, "tx2.txt", &t).ok());
  const CounterSeries* util = Find(t, "gpu0_util_pct");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->value, std::vector<double>(4, 12));
  EXPECT_EQ(util->ts_ns[3] - util->ts_ns[0], 1'500'000'000);
  EXPECT_DOUBLE_EQ(Find(t, "gpu0_power_w")->value[0], 0.076);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  EXPECT_TRUE(t.workers[0].sample_times_assumed);
}

// A CSV that mentions RAM is still a CSV; a text without GR3D is no tegrastats log.
TEST(Tegrastats, OtherTextIsNotTegrastats) {
  EXPECT_NE(DetectFormat("timestamp, RAM 1/2MB, utilization.gpu [%]\n1, 2, 3\n", "x.csv"), InputFormat::kTegrastats);
  EXPECT_NE(DetectFormat("RAM 2212/7854MB CPU [2%@345]\n", "x.txt"), InputFormat::kTegrastats);
}

}  // namespace
}  // namespace stepdoctor
