// The project's own GPU recordings (examples/gpu/, recorded on an NVIDIA H200 with the scripts
// beside them): real Kineto traces, a real JAX XSpace, a real NVML sample file and a real
// nvidia-smi log. Always present, so these always run.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/reports_to_diff.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

Report DiagnoseGpuExample(const std::string& rel, Trace* keep = nullptr) {
  auto r = ImportPaths({testing::SourcePath(rel)});
  EXPECT_TRUE(r.ok()) << r.message();
  if (!r.ok()) return {};
  Report rep = AnalyzeTrace(r->trace);
  if (keep) *keep = std::move(r->trace);
  return rep;
}

const Finding* FindIn(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(GpuExamples, KinetoNumWorkers0IsInputBound) {
  Report r = DiagnoseGpuExample("examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz");
  EXPECT_EQ(r.format, "chrome-json (kineto)");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_EQ(r.steps.count, 5);
  const Finding* f = FindIn(r, "input_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->share_pct, 91.6, 1.0);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_NE(r.devices[0].device.find("NVIDIA H200"), std::string::npos);
  EXPECT_NEAR(r.devices[0].idle_pct, 90.0, 1.0);
}

TEST(GpuExamples, KinetoNumWorkers8IsComputeBound) {
  Report r = DiagnoseGpuExample("examples/gpu/gpu_dataloader_workers8.pt.trace.json.gz");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_EQ(FindIn(r, "input_bound"), nullptr);
  const Finding* c = FindIn(r, "compute_bound");
  ASSERT_NE(c, nullptr);
  // fp32 kernels on a Hopper GPU, most of their time in cuDNN's batch norm and its NCHW <-> NHWC
  // conversions rather than the convolutions: fusing, one memory format and 16-bit, not
  // TensorCores alone.
  EXPECT_NE(c->fix.summary.find("run in 16-bit"), std::string::npos) << c->fix.summary;
  EXPECT_NE(c->fix.pytorch.find("channels_last"), std::string::npos) << c->fix.pytorch;
}

TEST(GpuExamples, JaxLogdirHasStepsFromStepTraceAnnotation) {
  Report r = DiagnoseGpuExample("examples/gpu/jax_logdir");
  EXPECT_EQ(r.format, "xplane (jax)");
  // StepTraceAnnotation("train", step_num=0..5); step 0 holds the jit compilation: warm-up.
  EXPECT_EQ(r.steps.count + int(r.steps.warmup.size()), 6);
  ASSERT_EQ(r.steps.warmup.size(), 1u);
  EXPECT_EQ(r.steps.warmup[0].number, 0);
  EXPECT_EQ(r.coverage.framework, "jax");
  EXPECT_EQ(r.coverage.steps, "markers");
  EXPECT_FALSE(r.steps.whole_window);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_GT(r.devices[0].kernel_count, 0);
}

// The job loads its data in the training process (num_workers=0): one core flat out beside an
// idle GPU, which samples alone cannot tell from the loop's own Python: the host.
TEST(GpuExamples, NvmlSamplesOfAnInputBoundJob) {
  Report r = DiagnoseGpuExample("examples/gpu/live_gpu_samples.jsonl");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost) << r.verdict.summary;
  const Finding* f = FindIn(r, "gpu_starved_cpu_bound");
  ASSERT_NE(f, nullptr);
  // Mean GPU utilisation NVML reported after the job's start-up (8.1% with it, stated beside).
  EXPECT_NEAR(100.0 - f->share_pct, 13.0, 1.0);
  EXPECT_NE(testing::EvidenceText(*f).find("GPU utilisation with the start-up: 8.1%"), std::string::npos)
      << testing::EvidenceText(*f);
}

TEST(GpuExamples, NvidiaSmiLogOfTheSameJob) {
  Report r = DiagnoseGpuExample("examples/gpu/nvidia_smi_log.csv");
  const Finding* f = FindIn(r, "low_gpu_utilisation");
  ASSERT_NE(f, nullptr);
  // The log opens with 9 samples (4.5 s) before the job held the GPU (0 MiB): left out; then 10
  // (5.0 s) at 0% holding 529 MiB while the job loads its model: kept out, 12.7% after them
  // (9.6% with them).
  EXPECT_NEAR(100.0 - f->share_pct, 12.7, 1.0);
  EXPECT_NE(f->title.find("while a process held the GPU (7.9% over the whole log, which starts before it; after a 5.0 s "
                          "start-up, kept out: 9.6% with it)"),
            std::string::npos)
      << f->title;
}


TEST(GpuExamples, DiffOfTheDataLoaderFix) {
  Trace tb, ta;
  Report before = DiagnoseGpuExample("examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz", &tb);
  Report after = DiagnoseGpuExample("examples/gpu/gpu_dataloader_workers8.pt.trace.json.gz", &ta);
  DiffReport d = ReportsToDiff(tb, before, ta, after);
  ASSERT_TRUE(d.speedup.has_value());
  EXPECT_GT(*d.speedup, 10.0);  // 111 ms -> 7.9 ms median
  EXPECT_LT(d.step_delta_ms, -100.0);
}


// The same kind of loop under torch.autocast(bfloat16): the kernels are 16-bit, so the
// compute_bound note must not suggest mixed precision (its fp32 twin, workers8, does).
TEST(GpuExamples, Bf16AutocastIsSeenAsSixteenBit) {
  Report r = DiagnoseGpuExample("examples/gpu/gpu_amp_bf16.pt.trace.json.gz");
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  double dc = 0, dc16 = 0;
  for (const auto& b : r.breakdown)
    if (b.category == "device_compute") dc = b.pct;
  for (const auto& b : r.breakdown_detail)
    if (b.category == "device_compute_16bit") dc16 = b.pct;
  EXPECT_GT(dc, 70.0);
  EXPECT_GT(dc16, 0.9 * dc);  // 73.5% of 76.7% when recorded
  const Finding* c = FindIn(r, "compute_bound");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->fix.summary.find("mixed precision"), std::string::npos) << c->fix.summary;
}

}  // namespace
}  // namespace stepdoctor
