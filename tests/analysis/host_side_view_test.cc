// What the host side alone can say, and what the replay predicts for the fix the host_bound
// finding advises: operators computing on CPU tensors bound the step from below even where the
// device's records are missing; moving them ("cpuwork") is predicted by replaying the step
// without them; a blocking copy is not counted twice; no prediction beats the finding's bound.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_host_cpu_ops.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/importers/import_paths.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

constexpr const char* kGpu =
    ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA GeForce RTX 4060\",\"computeMajor\":8,\"computeMinor\":9}]";

const Finding* Find(const Report& r, const std::string& id) { return testing::FindFinding(r, id); }

// Steps of `step_ms`: aten::randn computes `cpu_ms` on the CPU (no launch inside), then the
// tensor is copied with a blocking cudaMemcpyAsync of `copy_ms` and one kernel is launched.
// With `device`, the copy and kernel are recorded on the GPU; without, only the host side is.
std::string RandnLoop(int steps, double cpu_ms, double copy_ms, bool device, bool runtime = true) {
  std::string ev;
  double t = 0;
  int corr = 1;
  const double step_us = (cpu_ms + copy_ms + 1.0) * 1000;
  for (int i = 0; i < steps; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, step_us);
    ev += X("cpu_op", "aten::randn", 1, 1, t + 10, cpu_ms * 1000);
    const double copy_at = t + 20 + cpu_ms * 1000;
    ev += X("cpu_op", "aten::to", 1, 1, copy_at, copy_ms * 1000 + 30);
    if (runtime) ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, copy_at + 5, copy_ms * 1000 + 20, Corr(corr));
    if (device)
      ev += X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, copy_at + 10, copy_ms * 1000,
              "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
    ++corr;
    const double launch_at = copy_at + copy_ms * 1000 + 60;
    if (runtime) ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, launch_at, 10, Corr(corr));
    if (device)
      ev += X("kernel", "vectorized_elementwise_kernel", 0, 7, launch_at + 15, 300,
              "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
    ++corr;
    t += step_us;
  }
  return Doc(ev, kGpu);
}

Report Analyze(const std::string& json) { return AnalyzeTrace(testing::ImportChrome(json)); }

TEST(HostSideView, CpuWorkBoundsTheStepWhenDeviceRecordsAreMissing) {
  Report r = Analyze(RandnLoop(4, 40, 8, /*device=*/false));
  EXPECT_EQ(r.coverage.device_activity, "missing");
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].id, "device_activity_missing");  // what the input lacks leads
  const Finding* host = Find(r, "host_bound");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->severity, FindingSeverity::kModerate);  // judged without the device's side
  EXPECT_NEAR(host->share_pct, 100.0 * 40 / 49, 1.0);
  EXPECT_NE(host->title.find("aten::randn"), std::string::npos) << host->title;
  EXPECT_NE(host->title.find("device activity not recorded"), std::string::npos) << host->title;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kHost);
  EXPECT_EQ(r.verdict.summary.rfind("host-bound (host-side view)", 0), 0u) << r.verdict.summary;
  // No replay without the device's records: the prediction says why.
  ASSERT_TRUE(host->prediction);
  EXPECT_FALSE(host->prediction->predicted);
}

TEST(HostSideView, LittleCpuWorkLeavesTheVerdictOpen) {
  // The CPU operator holds under kHostModeratePct of the step: no host finding.
  const double cpu_ms = 0.8 * kHostModeratePct / 100.0 * 49, copy_ms = 48 - cpu_ms;
  Report r = Analyze(RandnLoop(4, cpu_ms, copy_ms, /*device=*/false));
  EXPECT_EQ(Find(r, "host_bound"), nullptr);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_EQ(r.verdict.summary.rfind("device activity not captured", 0), 0u) << r.verdict.summary;
}

// Neither device activity nor launch calls recorded (the device tracer was off): an operator
// that only queues device work returns in microseconds, so one holding the host for a
// millisecond or more computes there, unless it can wait on the device (the copy).
TEST(HostSideView, WithoutLaunchCallsLongOperatorsThatCannotWaitAreCpuWork) {
  Report r = Analyze(RandnLoop(4, 40, 8, /*device=*/false, /*runtime=*/false));
  const Finding* host = Find(r, "host_bound");
  ASSERT_NE(host, nullptr);
  EXPECT_NEAR(host->share_pct, 100.0 * 40 / 49, 1.0);  // aten::randn; the 8 ms aten::to is left out
  EXPECT_NE(host->title.find("aten::randn"), std::string::npos) << host->title;
  EXPECT_EQ(host->title.find("aten::to"), std::string::npos) << host->title;
  EXPECT_NE(testing::EvidenceText(*host).find("launch calls"), std::string::npos);
  EXPECT_EQ(r.verdict.summary.rfind("host-bound (host-side view)", 0), 0u) << r.verdict.summary;
  // Only the copy holds the host: it may be a wait on the device, so no host finding.
  Report copy = Analyze(RandnLoop(4, 0.5, 40, /*device=*/false, /*runtime=*/false));
  EXPECT_EQ(Find(copy, "host_bound"), nullptr);
  EXPECT_EQ(copy.verdict.bottleneck, Bottleneck::kUnknown);
}

// Three tiny steps that only queue a matmul each, then the profiler's own synchronize at stop
// waits `wait_ms` for the queued work: the device's time, not recorded, is the longer.
std::string QueuedGemms(double wait_ms) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    const double t = i * 200.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 190);
    ev += X("cpu_op", "aten::mm", 1, 1, t + 20, 120);
  }
  ev += X("python_function", "torch/cuda/__init__.py(1267): synchronize", 1, 1, 700, wait_ms * 1000);
  return Doc(ev, kGpu);
}

TEST(HostSideView, AWaitOnTheDeviceSaysItWasBusyBothSides) {
  Report r = Analyze(QueuedGemms(2.4));
  EXPECT_EQ(r.verdict.summary.rfind("too little to diagnose", 0), 0u) << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("the host then waited 2.40 ms on the device (torch/cuda/__init__.py(1267): "
                                   "synchronize): its work, not recorded, outlasts the host's"),
            std::string::npos)
      << r.verdict.summary;
  const Finding* f = Find(r, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(testing::EvidenceText(*f).find("the host waited 2.40 ms on the device"), std::string::npos);
  const double under = 0.9 * kDeviceWaitEvidenceNs / 1e6;  // a wait this short says little
  Report short_wait = Analyze(QueuedGemms(under));
  EXPECT_EQ(short_wait.verdict.summary.find("waited"), std::string::npos) << short_wait.verdict.summary;
  EXPECT_EQ(testing::EvidenceText(*Find(short_wait, "device_activity_missing")).find("waited"), std::string::npos);
}

TEST(HostSideView, OperatorsThatCanWaitOnTheDevice) {
  for (const char* n : {"aten::to", "aten::copy_", "aten::item", "aten::_local_scalar_dense", "aten::nonzero",
                        "cudaDeviceSynchronize", "Memcpy HtoD"})
    EXPECT_TRUE(MayWaitOnDeviceOpName(n)) << n;
  for (const char* n : {"aten::randn", "aten::uniform_", "aten::square", "aten::conv2d", "aten::topk"})
    EXPECT_FALSE(MayWaitOnDeviceOpName(n)) << n;
}

// Launch calls are recorded by the tracer session that records kernels: with them present the
// kernel records were lost, and the advice is why records go missing, not to switch tracing on.
TEST(HostSideView, RecordedLaunchesMeanTheTracerWasOn) {
  Report lost = Analyze(RandnLoop(4, 40, 8, /*device=*/false));
  const Finding* f = Find(lost, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("tracer was on"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.pytorch.find("torch.cuda.synchronize()"), std::string::npos) << f->fix.pytorch;
  // Only the device list shows the accelerator: tracing was not asked for.
  Report unasked = Analyze(RandnLoop(4, 40, 8, /*device=*/false, /*runtime=*/false));
  const Finding* g = Find(unasked, "device_activity_missing");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->title.find("tracer was on"), std::string::npos) << g->title;
  EXPECT_NE(g->fix.summary.find("Record device activity"), std::string::npos) << g->fix.summary;
}

TEST(HostSideView, MovingCpuWorkIsPredictedByTheReplay) {
  Report r = Analyze(RandnLoop(6, 40, 8, /*device=*/true));
  const Finding* host = Find(r, "host_bound");
  ASSERT_NE(host, nullptr);
  EXPECT_NE(host->title.find("mostly CPU work"), std::string::npos) << host->title;
  ASSERT_TRUE(host->prediction);
  const Prediction& p = *host->prediction;
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_EQ(p.fix, "cpuwork");
  // The step without the 40 ms of CPU work: the copy, the kernel and what lies between them.
  EXPECT_NEAR(p.predicted_step_ms, 9.0, 1.0);
  EXPECT_GT(p.speedup, 4.0);
  EXPECT_LE(p.speedup, host->gain_upper_bound + 1e-9);
  EXPECT_GT(p.high_ms, p.predicted_step_ms);  // half the work left at worst
}

// The blocking copy runs inside its call: the replay of the trace as recorded must not start it
// after the call ends (which counted the copy twice and overshot the step).
TEST(HostSideView, BlockingCopyIsNotCountedTwice) {
  Trace t = testing::ImportChrome(RandnLoop(6, 5, 30, /*device=*/true));
  auto fix = ParseFix("launch");
  ASSERT_TRUE(fix.ok());
  WhatIfReport w = TraceToWhatIf(t, {*fix}, {});
  ASSERT_EQ(w.predictions.size(), 1u);
  const Prediction& p = w.predictions[0];
  EXPECT_NEAR(p.model_baseline_ms, p.baseline_step_ms, 0.02 * p.baseline_step_ms);
}

TEST(HostSideView, NoCpuWorkNoPrediction) {
  Trace t = testing::ImportChrome(RandnLoop(4, 0.5, 8, /*device=*/true));
  auto fix = ParseFix("cpuwork");
  ASSERT_TRUE(fix.ok());
  WhatIfReport w = TraceToWhatIf(t, {*fix}, {});
  ASSERT_EQ(w.predictions.size(), 1u);
  EXPECT_FALSE(w.predictions[0].predicted);
  EXPECT_NE(w.predictions[0].why_not.find("no operator computes on CPU tensors"), std::string::npos);
}

// Operators nest (aten::to holds aten::_to_copy ...): a share of their summed time would say
// randn is a third of the step when it is four fifths. Each is a share of the span they cover.
TEST(HostSideView, TopOperatorSharesAreOfTheSpanTheyCover) {
  Report r = Analyze(RandnLoop(4, 40, 8, /*device=*/true));
  const TopEvent* randn = nullptr;
  for (const auto& o : r.top_ops)
    if (o.name == "aten::randn") randn = &o;
  ASSERT_NE(randn, nullptr);
  EXPECT_NEAR(randn->total_ms, 160.0, 0.1);
  // The operators span four steps of 49 ms less the first 10 us and the last step's tail.
  EXPECT_NEAR(randn->share_pct, 100.0 * 40 / 49, 1.0);
  // Kernels keep their share of the summed kernel time.
  double kernels = 0;
  for (const auto& k : r.top_kernels) kernels += k.share_pct;
  EXPECT_NEAR(kernels, 100.0, 0.1);
}

// One figure per fix: where the replay of a finding's fix gives more than its share's bound
// (the H200 DataLoader example: the bound 1 / (1 - share) said 9.7x, the replay 11.8x, the
// measured after-run 12.5x), the bound is the replay's, and the gain text says that figure.
TEST(HostSideView, TheBoundNeverUndercutsItsOwnPrediction) {
  auto imported = ImportPaths({testing::SourcePath("examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz")});
  ASSERT_TRUE(imported.ok()) << imported.message();
  Report r = AnalyzeTrace(imported->trace);
  int checked = 0;
  for (const Finding& f : r.findings) {
    if (!f.prediction || !f.prediction->predicted) continue;
    ++checked;
    EXPECT_LE(f.prediction->speedup, f.gain_upper_bound + 1e-9) << f.id;
    if (f.gain_text.rfind("up to ", 0) == 0) {
      EXPECT_EQ(f.gain_text.rfind(fmt::format("up to {:.2f}x", f.gain_upper_bound), 0), 0u) << f.gain_text;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace stepdoctor
