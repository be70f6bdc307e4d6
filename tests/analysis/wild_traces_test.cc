// Real traces from public repositories the first tranche misread (../shared/corpus/wild/, see
// its SOURCES.md). Each test asserts what the trace shows when read event by event or what its
// repository says about the run, never a pinned copy of today's report.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

struct Diagnosed {
  Trace trace;
  Report report;
};

Diagnosed DiagnoseCorpus(const std::string& path) {
  Diagnosed d;
  auto r = ImportPaths({path});
  EXPECT_TRUE(r.ok()) << r.message();
  if (!r.ok()) return d;
  d.trace = std::move(r->trace);
  d.report = AnalyzeTrace(d.trace);
  return d;
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

bool AnyTextHas(const Report& r, const std::string& needle) {
  if (r.verdict.summary.find(needle) != std::string::npos) return true;
  for (const auto& f : r.findings)
    if (f.title.find(needle) != std::string::npos || f.fix.summary.find(needle) != std::string::npos) return true;
  for (const auto& n : r.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

// 236 cudaLaunchKernel calls and no kernel events: GPU activity was not captured. The report
// must say so, and never treat the CPU as the device or advise moving work to an accelerator.
TEST(WildTraces, LaunchesWithoutKernelsIsDeviceActivityMissing) {
  SD_CORPUS_OR_SKIP(path, "wild/hazy-zoology-trace.json");
  Diagnosed d = DiagnoseCorpus(path);
  const Report& r = d.report;
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_EQ(r.coverage.confidence, "low");
  EXPECT_EQ(r.coverage.framework, "pytorch");
  EXPECT_NE(Find(r, "device_activity_missing"), nullptr);
  EXPECT_EQ(Find(r, "compute_bound"), nullptr);
  EXPECT_EQ(Find(r, "host_bound"), nullptr);  // "the device waits on the host": not knowable here
  EXPECT_FALSE(AnyTextHas(r, "CPU is the device"));
  EXPECT_FALSE(AnyTextHas(r, "CPU is treated as the device"));
  EXPECT_FALSE(AnyTextHas(r, "move the work to an accelerator"));
  EXPECT_NE(r.verdict.summary.find("not captured"), std::string::npos) << r.verdict.summary;
  const Finding* f = Find(r, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.pytorch.find("ProfilerActivity.CUDA"), std::string::npos);
}

// autograd profiler, no ProfilerStep markers, DataLoader num_workers=0: input-bound by design.
// Iteration 1 (about 4.5 s: a 1.57 s cudaLaunchKernel, cudaFree ...) is warm-up; steps 2-6 take
// about 150 ms, of which the DataLoader takes 40-86 ms.
TEST(WildTraces, AutogradProfilerStepsAreInferredAndWarmupKeptOut) {
  SD_CORPUS_OR_SKIP(path, "wild/resnet50_autograd_api_num_workers_0.pt.trace.json.gz");
  Diagnosed d = DiagnoseCorpus(path);
  const Report& r = d.report;
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_TRUE(r.steps.inferred);
  EXPECT_EQ(r.steps.count, 5);
  ASSERT_EQ(r.steps.warmup.size(), 1u);
  EXPECT_GT(r.steps.warmup[0].duration_ms, 4000.0);
  EXPECT_NEAR(r.steps.median_ms, 150.0, 15.0);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput);
  const Finding* f = Find(r, "input_bound");
  ASSERT_NE(f, nullptr);
  // The DataLoader's 40-86 ms of a ~150 ms step.
  EXPECT_GT(f->share_pct, 40.0 / 160.0 * 100.0 - 5);
  EXPECT_LT(f->share_pct, 86.0 / 150.0 * 100.0);
  // The warm-up's one-off 1.5 s launch is not per-step launch overhead.
  EXPECT_EQ(Find(r, "host_bound"), nullptr);
  EXPECT_EQ(Find(r, "kernel_launch_bound"), nullptr);
}

// Meta MTIA: device lanes are "MTIA 9" with "Stream 1 FW" and DMA_REQUEST threads: an
// accelerator trace, never a CPU-only one.
TEST(WildTraces, MtiaLanesAreAnAccelerator) {
  SD_CORPUS_OR_SKIP(path, "wild/mtia_rank_0.json.gz");
  Diagnosed d = DiagnoseCorpus(path);
  const Report& r = d.report;
  EXPECT_EQ(r.coverage.device_activity, "captured");
  bool mtia = false;
  for (const auto& dev : d.trace.devices) mtia |= dev.kind == DeviceKind::kOther && dev.name == "MTIA 9";
  EXPECT_TRUE(mtia);
  for (const auto& t : d.trace.timelines)
    if (t.name == "Stream 1 FW" || t.name == "DMA_REQUEST") {
      EXPECT_EQ(t.kind, TimelineKind::kDeviceStream) << t.name;
    }
  EXPECT_FALSE(AnyTextHas(r, "CPU is treated as the device"));
  EXPECT_FALSE(AnyTextHas(r, "the CPU computes"));
  ASSERT_FALSE(r.devices.empty());
}

// vLLM decode on MI300X, one hipGraphLaunch: the host finishes at 2.4 ms, the GPU is 99.4% busy
// over its 10.7 ms span: device-bound, and graphs are already in use.
TEST(WildTraces, GraphReplayWithABusyDeviceIsDeviceBound) {
  SD_CORPUS_OR_SKIP(path, "wild/vllm_decode_full_graph_execution.json.gz");
  Diagnosed d = DiagnoseCorpus(path);
  const Report& r = d.report;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kDeviceCompute) << r.verdict.summary;
  EXPECT_EQ(Find(r, "host_bound"), nullptr);
  EXPECT_EQ(Find(r, "kernel_launch_bound"), nullptr);
  bool graphs = false;
  for (const auto& a : r.coverage.applied) graphs |= a.find("graph replay") != std::string::npos;
  EXPECT_TRUE(graphs);
  for (const auto& f : r.findings) EXPECT_EQ(f.fix.pytorch.find("CUDAGraph()"), std::string::npos) << f.id;
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_GT(r.devices[0].compute_pct, 99.0);
  // The panel and the verdict tell one story: the device's share of the step is what it did
  // plus what was queued for it, not "other".
  double device_side = 0;
  for (const auto& b : r.breakdown)
    if (b.category == "device_compute" || b.category == "memcpy") device_side += b.pct;
  for (const auto& b : r.breakdown_detail)
    if (b.category == "other_device_queued") device_side += b.pct;
  EXPECT_GT(device_side, 90.0);
}

// DeepSeek-V3 training on H800: about 48% of kernel time is DeepEP all-to-all (dpsk::ep::*),
// not NCCL; FP8 grouped GEMMs. The run is FP8: no advice to switch to fp16 autocast.
TEST(WildTraces, DeepEpKernelsAreCommunicationAndFp8GetsNoAmpAdvice) {
  SD_CORPUS_OR_SKIP(path, "wild/deepseek-train.json");
  Diagnosed d = DiagnoseCorpus(path);
  double comm = 0, all = 0;
  for (const auto& t : d.trace.timelines) {
    if (t.kind != TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] == EventKind::kCollective) comm += double(t.ev.dur_ns[i]);
      if (t.ev.kind[i] == EventKind::kCollective || t.ev.kind[i] == EventKind::kKernel) all += double(t.ev.dur_ns[i]);
    }
  }
  ASSERT_GT(all, 0);
  EXPECT_NEAR(100.0 * comm / all, 48.0, 6.0);
  const Report& r = d.report;
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.fix.summary.find("mixed precision"), std::string::npos) << f.id;
    EXPECT_EQ(f.fix.pytorch.find("torch.float16"), std::string::npos) << f.id;
  }
  EXPECT_EQ(r.coverage.device_activity, "captured");
}

}  // namespace
}  // namespace stepdoctor
