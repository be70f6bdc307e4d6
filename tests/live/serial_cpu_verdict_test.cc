// A CPU-only job saturating one core is CPU-bound on that core (a compute verdict), not
// input-bound: "input-bound" needs a device shown starving (GPU samples at low utilisation).
#include <gtest/gtest.h>

#include <algorithm>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor {
namespace {

// A samples file as `stepdoctor run` writes it on a 4-core machine: the job's tree of `procs`
// processes holds `tree_cpu` % of one core (99: one core, the other cores 2% busy); with
// `gpu_util` >= 0 a GPU series too.
std::string OneCoreSamples(double gpu_util, int procs = 1, double tree_cpu = 99) {
  live::SamplesHeader h;
  h.hostname = "box";
  h.pid = 42;
  h.interval_ns = 1000000000;
  h.cores = 4;
  h.nvml = gpu_util >= 0 ? "ok" : "libnvidia-ml.so.1: cannot open shared object file";
  if (gpu_util >= 0) h.gpus.push_back({0, "NVIDIA L4", 24ull << 30});
  std::string s = live::SamplesHeaderJson(h) + "\n";
  for (int i = 0; i < 20; ++i) {
    live::Sample smp;
    smp.ts_ns = 1700000000000000000 + int64_t(i) * 1000000000;
    smp.Add("proc_cpu_pct", tree_cpu);
    smp.Add("proc_count", procs);
    smp.Add("cpu_pct_total", (tree_cpu + 6) / 4.0);
    for (int c = 0; c < 4; ++c) {
      const double in_tree = std::min(99.0, std::max(0.0, tree_cpu - 99.0 * c));
      smp.Add("cpu_core" + std::to_string(c) + "_pct", in_tree > 0 ? in_tree : 2);
    }
    if (gpu_util >= 0) smp.Add("gpu0_util_pct", gpu_util);
    s += live::SampleJson(smp) + "\n";
  }
  return s;
}

Report Diagnose(const std::string& text) {
  Trace t;
  auto src = OpenMaybeCompressed(text, "samples.jsonl");
  ImportedFile info;
  Status st = ImportSource(*src, t, {}, &info);
  EXPECT_TRUE(st.ok()) << st.message();
  return AnalyzeTrace(t);
}

bool Has(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return true;
  return false;
}

TEST(SerialCpuVerdict, NoDeviceMeansCpuBoundOnOneCore) {
  Report r = Diagnose(OneCoreSamples(-1));
  EXPECT_TRUE(Has(r, "serial_cpu_pipeline"));
  EXPECT_FALSE(Has(r, "gpu_starved_cpu_bound"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute) << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("CPU-bound on one core"), std::string::npos) << r.verdict.summary;
}

// GPU samples beside one busy core cannot say whether that core loads data or runs the loop's
// own Python: host-bound, and the advice is to profile a few steps first.
TEST(SerialCpuVerdict, StarvingGpuBesideTheBusyCoreIsHostBound) {
  Report r = Diagnose(OneCoreSamples(3));
  EXPECT_TRUE(Has(r, "gpu_starved_cpu_bound"));
  EXPECT_FALSE(Has(r, "serial_cpu_pipeline"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost) << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("cannot tell which"), std::string::npos) << r.verdict.summary;
  for (const auto& f : r.findings)
    if (f.id == "gpu_starved_cpu_bound") { EXPECT_NE(f.fix.pytorch.find("torch.profiler"), std::string::npos); }
}

// The same GPU with the CPU work spread over several processes past one core: the pattern of
// input workers, so the input is named and the advice is the input pipeline's.
TEST(SerialCpuVerdict, StarvingGpuBesideBusyWorkerProcessesIsInputBound) {
  Report r = Diagnose(OneCoreSamples(3, 5, 350));
  ASSERT_TRUE(Has(r, "gpu_starved_cpu_bound"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput) << r.verdict.summary;
  for (const auto& f : r.findings)
    if (f.id == "gpu_starved_cpu_bound") { EXPECT_NE(f.fix.pytorch.find("num_workers"), std::string::npos); }
}

// Several processes, but only one core's work among them: still the host.
TEST(SerialCpuVerdict, SeveralProcessesOnOneCoreStayHostBound) {
  Report r = Diagnose(OneCoreSamples(3, 3, 99));
  ASSERT_TRUE(Has(r, "gpu_starved_cpu_bound"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost) << r.verdict.summary;
}

}  // namespace
}  // namespace stepdoctor
