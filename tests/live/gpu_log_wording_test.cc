// What a GPU log's findings and headline state: only figures the log holds (no memory figure
// without a memory column), memory wherever the log holds it (any column naming, any finding
// the utilisation gives), and busy GPUs stated as busy, never as compute-bound (utilisation
// counts any resident kernel, collective waits included), in the plural for several GPUs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;

const Finding* FindIn(const Report& r, const std::string& id) { return testing::FindFinding(r, id); }
std::string EvidenceOf(const Finding& f) { return testing::EvidenceText(f); }
Report Diagnose(const std::string& csv) {
  Trace t;
  Status st = ImportText(csv, "gpu.csv", &t);
  EXPECT_TRUE(st.ok()) << st.message();
  return AnalyzeTrace(t);
}
bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// `gpus` GPUs in long format (one row per GPU per poll), 20 polls, each GPU at `util[g]`%, with
// power and temperature but no memory column.
std::string LongFormatLog(const std::vector<int>& util) {
  std::string s = "timestamp,gpu_index,temperature_C,utilization_gpu_percent,power_W\n";
  for (int p = 0; p < 20; ++p)
    for (size_t g = 0; g < util.size(); ++g)
      s += fmt::format("2025-09-24T03:48:{:02d}.493Z,{}, 40, {}, {:.2f}\n", p, g, util[g], 380.0 + g);
  return s;
}

TEST(GpuLogWording, PowerOnlyLogStatesPowerAndNoMemoryFigure) {
  std::string csv = "timestamp, power.draw [W]\n";
  for (int i = 0; i < 21; ++i) csv += fmt::format("2024/10/30 18:42:{:02d}.189, {:.2f} W\n", i, 21.0 + (i % 3));  // mean 22 W
  Report r = Diagnose(csv);
  const Finding* f = FindIn(r, "gpu_utilisation_not_logged");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_EQ(f->title.find("memory"), std::string::npos) << f->title;  // no memory column: no memory figure
  EXPECT_NE(f->title.find("power draw only (22.0 W mean)"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("how busy it was cannot be told"), std::string::npos) << f->title;
  EXPECT_EQ(EvidenceOf(*f).find("memory"), std::string::npos) << EvidenceOf(*f);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_EQ(r.verdict.summary.find("MiB"), std::string::npos) << r.verdict.summary;
}

TEST(GpuLogWording, PowerOnlyLogOfSeveralGpusAveragesPerGpu) {
  std::string csv = "timestamp,index,power.draw [W]\n";
  for (int i = 0; i < 10; ++i)
    for (int g = 0; g < 4; ++g) csv += fmt::format("{},{},{} W\n", 1000 + i, g, 100 + 10 * g);
  Report r = Diagnose(csv);
  const Finding* f = FindIn(r, "gpu_utilisation_not_logged");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->title.find("4 GPUs sampled"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("power draw only (115.0 W mean per GPU)"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("how busy they were"), std::string::npos) << f->title;
}

TEST(GpuLogWording, MemoryAndPowerWithoutUtilisationStatesBoth) {
  std::string csv = "timestamp,memory.used [MiB],memory.total [MiB],power.draw [W]\n";
  for (int i = 0; i < 10; ++i) csv += fmt::format("{},10240 MiB,24576 MiB,150 W\n", 1000 + i);
  Report r = Diagnose(csv);
  const Finding* f = FindIn(r, "gpu_utilisation_not_logged");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("memory used peaks at 10.0 GiB of 24.0 GiB, power draw 150.0 W mean"), std::string::npos)
      << f->title;
  EXPECT_EQ(f->title.find("only"), std::string::npos) << f->title;
}

// How a log names its memory columns and writes their cells (the figures are MiB).
struct MemoryNaming {
  const char* used_header;
  const char* total_header;  // "" for a log without a total
  const char* value_suffix;  // after the MiB figure in each cell
};

// One GPU near `util`% for 20 samples 60 s apart, used memory rising to 5900 MiB of 24576 MiB.
std::string UtilAndMemoryLog(int util, const MemoryNaming& n) {
  const bool total = *n.total_header != '\0';
  std::string s = fmt::format("timestamp,{}{}{},utilization.gpu\n", n.used_header, total ? "," : "", n.total_header);
  for (int i = 0; i < 20; ++i)
    s += fmt::format("{}, {}{}{}{}, {}\n", 1764189075 + 60 * i, 4000 + 100 * i, n.value_suffix, total ? ", 24576" : "",
                     total ? n.value_suffix : "", util + (i % 2 ? 1 : -1));
  return s;
}

TEST(GpuLogWording, MemoryIsReportedBesideUtilisationWhateverItsNamingAndLevel) {
  // The peak is 4000 + 100 * 19 = 5900 MiB = 5.8 GiB.
  const std::vector<MemoryNaming> namings = {{"memory.used", "memory.total", ""},
                                             {"memory.used [MiB]", "memory.total [MiB]", " MiB"},
                                             {"mem_used_mb", "mem_total_mb", ""},
                                             {"used_memory", "total_memory", "MiB"},
                                             {"memory.used", "", ""}};
  // Starved, partly fed and well fed: each finding the utilisation gives states the memory.
  const std::vector<std::pair<int, const char*>> levels = {
      {int(kGpuLowUtilPct) - 10, "low_gpu_utilisation"},
      {int(kGpuLowUtilPct + kGpuWellFedPct) / 2, "gpu_partly_idle"},
      {int(kGpuWellFedPct) + 10, "gpu_well_fed"}};
  for (const MemoryNaming& n : namings)
    for (const auto& [util, id] : levels) {
      SCOPED_TRACE(fmt::format("{} / {} at {}%", n.used_header, n.total_header, util));
      Report r = Diagnose(UtilAndMemoryLog(util, n));
      const Finding* f = FindIn(r, id);
      ASSERT_NE(f, nullptr) << r.verdict.summary;
      const std::string want = *n.total_header ? "GPU 0 memory peak: 5.8 GiB of 24.0 GiB (24.0%)" : "GPU 0 memory peak: 5.8 GiB\n";
      EXPECT_NE(EvidenceOf(*f).find(want), std::string::npos) << EvidenceOf(*f);
    }
}

TEST(GpuLogWording, NoMemoryColumnNoMemoryEvidence) {
  for (int util : {20, 55, 95}) {
    Report r = Diagnose(LongFormatLog({util, util}));
    ASSERT_FALSE(r.findings.empty());
    for (const Finding& f : r.findings) EXPECT_EQ(EvidenceOf(f).find("memory"), std::string::npos) << EvidenceOf(f);
  }
}

TEST(GpuLogWording, BusyGpusAreStatedAsBusyNotComputeBound) {
  Report r = Diagnose(LongFormatLog({100, 100, 100, 100, 100, 100, 100, 100}));
  const Finding* f = FindIn(r, "gpu_well_fed");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_TRUE(StartsWith(r.verdict.summary, "all 8 GPUs busy: 100.0% mean utilisation")) << r.verdict.summary;
  EXPECT_EQ(r.verdict.summary.find("compute-bound"), std::string::npos) << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("collectives"), std::string::npos) << r.verdict.summary;
  // The advice is to find out what the kernels are, not to speed up compute the log cannot see.
  EXPECT_NE(f->fix.summary.find("profile a few steps"), std::string::npos) << f->fix.summary;
  EXPECT_NE(f->fix.summary.find("NCCL"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.pytorch.find("torch.compile"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.tensorflow.find("mixed_precision"), std::string::npos) << f->fix.tensorflow;
  EXPECT_NE(f->gain_text.find("the GPUs are busy"), std::string::npos) << f->gain_text;
  EXPECT_EQ(r.coverage.confidence, "low");
}

TEST(GpuLogWording, BusySubjectFollowsTheGpuCountAndEachGpu) {
  const int fed = int(kGpuWellFedPct);
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({95})).verdict.summary, "GPU busy: 95.0% mean utilisation"));
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({95, 95})).verdict.summary, "both GPUs busy:"));
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({95, 95, 95})).verdict.summary, "all 3 GPUs busy:"));
  // kGpuWellFedPct per GPU: one GPU under it (the mean still over) is "on average", at it "all".
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({100, 100, fed - 1})).verdict.summary, "3 GPUs busy on average:"))
      << Diagnose(LongFormatLog({100, 100, fed - 1})).verdict.summary;
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({100, 100, fed})).verdict.summary, "all 3 GPUs busy:"));
  // An unused GPU (idle_gpu says which) is not counted busy.
  EXPECT_TRUE(StartsWith(Diagnose(LongFormatLog({95, 95, 0})).verdict.summary, "2 of 3 GPUs busy:"))
      << Diagnose(LongFormatLog({95, 95, 0})).verdict.summary;
}

TEST(GpuLogWording, WaitingGpusAreNamedInThePlural) {
  Report partly = Diagnose(LongFormatLog({55, 55, 55, 55}));
  const Finding* p = FindIn(partly, "gpu_partly_idle");
  ASSERT_NE(p, nullptr) << partly.verdict.summary;
  EXPECT_TRUE(StartsWith(p->title, "the 4 GPUs are busy 55.0% of the time")) << p->title;
  EXPECT_NE(p->title.find("what they wait on"), std::string::npos) << p->title;
  Report low = Diagnose(LongFormatLog({20, 20}));
  const Finding* l = FindIn(low, "low_gpu_utilisation");
  ASSERT_NE(l, nullptr) << low.verdict.summary;
  EXPECT_TRUE(StartsWith(l->title, "the 2 GPUs are busy only 20.0% of the time")) << l->title;
  Report one = Diagnose(LongFormatLog({55}));
  ASSERT_NE(FindIn(one, "gpu_partly_idle"), nullptr);
  EXPECT_TRUE(StartsWith(FindIn(one, "gpu_partly_idle")->title, "the GPU is busy 55.0%")) << FindIn(one, "gpu_partly_idle")->title;
}

}  // namespace
}  // namespace stepdoctor
