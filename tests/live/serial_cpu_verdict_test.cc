// A CPU-only job saturating one core is CPU-bound on that core (a compute verdict), not
// input-bound: "input-bound" needs a device shown starving (GPU samples at low utilisation).
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor {
namespace {

// A samples file as `stepdoctor run` writes it on a 4-core machine: the job's tree holds one
// core at 99% while the other cores are 2% busy; with `gpu_util` >= 0 a GPU series too.
std::string OneCoreSamples(double gpu_util) {
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
    smp.Add("proc_cpu_pct", 99);
    smp.Add("cpu_pct_total", (99 + 3 * 2) / 4.0);
    smp.Add("cpu_core0_pct", 99);
    for (int c = 1; c < 4; ++c) smp.Add("cpu_core" + std::to_string(c) + "_pct", 2);
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

TEST(SerialCpuVerdict, StarvingGpuBesideTheBusyCoreIsInputBound) {
  Report r = Diagnose(OneCoreSamples(3));
  EXPECT_TRUE(Has(r, "gpu_starved_cpu_bound"));
  EXPECT_FALSE(Has(r, "serial_cpu_pipeline"));
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput) << r.verdict.summary;
}

}  // namespace
}  // namespace stepdoctor
