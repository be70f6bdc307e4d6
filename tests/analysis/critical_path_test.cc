// The critical path (analysis/trace_to_critical_path): on steps built here, where the path is
// known by construction (host-bound, device-bound, a sync wait, a CUDA graph launch with kernels
// on two streams, a HIP trace), it is the chain each was built to have; on corpus traces it holds
// the properties every path must: as long as its step, inside it, its kernels the step's own.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_critical_path.h"
#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/render/whatif_render.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

Trace Import(const std::string& json) { return testing::ImportChrome(json); }

CriticalPathSummary PathOf(const Trace& t) {
  const StepModel m = TraceToPrimaryStepModel(t, {});
  return TraceToCriticalPath(t, PrimaryWorker(t), m, PathSegments::kAll);
}

// A kernel on stream `stream` of GPU 0, linked to its launch by `corr`.
std::string Kernel(const char* name, int stream, double ts, double dur, int corr, const char* cat = "kernel") {
  return X(cat, name, 0, stream, ts, dur,
           "{\"correlation\":" + std::to_string(corr) + ",\"stream\":" + std::to_string(stream) + ",\"device\":0}");
}

std::string Step(int i, double ts, double dur) {
  return X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, ts, dur);
}

double Kind(const StepCriticalPath& p, PathKind k) { return p.kind_ms[size_t(k)]; }

// Whether an event of this name and kind is on the path (among its top contributors).
bool OnPath(const StepCriticalPath& p, PathKind k, const std::string& name) {
  for (const auto& c : p.top)
    if (c.kind == k && c.name == name) return true;
  return false;
}

// Every step's path: as long as the step, inside it, in time order without gaps.
void ExpectWellFormed(const CriticalPathSummary& c) {
  for (const auto& p : c.steps) {
    EXPECT_NEAR(p.path_ms, p.step_ms, 0.01 * p.step_ms) << "step " << p.step;
    double t = p.start_ms;
    for (const auto& s : p.segments) {
      EXPECT_GE(s.start_ms, p.start_ms - 1e-6);
      EXPECT_LE(s.start_ms + s.dur_ms, p.start_ms + p.step_ms + 1e-6);
      EXPECT_NEAR(s.start_ms, t, 1e-6) << s.name;
      t = s.start_ms + s.dur_ms;
    }
  }
}

// Host-bound: each 10 ms step is five 2 ms operators, each ending in a 0.1 ms launch of a 10 us
// kernel the device runs at once. The device waits on the host: the path is host work and launches.
TEST(CriticalPath, HostBoundStepIsHostOpsAndLaunches) {
  std::string ev;
  int corr = 1;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += Step(s, t0, 10000);
    for (int k = 0; k < 5; ++k, ++corr) {
      const double op = t0 + k * 2000;
      ev += X("cpu_op", "aten::add", 1, 1, op, 2000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, op + 1900, 100, Corr(corr));
      ev += Kernel("vectorized_elementwise_kernel", 7, op + 2005, 10, corr);
    }
  }
  const CriticalPathSummary c = PathOf(Import(Doc(ev)));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_NEAR(Kind(p, PathKind::kLaunch), 0.5, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kHost), 9.5, 1e-6);
    EXPECT_EQ(Kind(p, PathKind::kKernel), 0);
    ASSERT_FALSE(p.top.empty());
    EXPECT_EQ(p.top[0].name, "aten::add");
  }
}

// Device-bound: the host launches five 1.9 ms kernels in the step's first 50 us, then
// synchronises until the last ends. The kernels back to back set the step.
TEST(CriticalPath, DeviceBoundStepIsKernelsBackToBack) {
  std::string ev;
  int corr = 1;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += Step(s, t0, 9600);
    for (int k = 0; k < 5; ++k, ++corr) {
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 10 * k, 8, Corr(corr));
      ev += Kernel("volta_sgemm_128x64_nn", 7, t0 + 90 + 1900 * k, 1900, corr);
    }
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t0 + 50, 9550);
  }
  const CriticalPathSummary c = PathOf(Import(Doc(ev)));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_NEAR(Kind(p, PathKind::kKernel), 9.5, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kWait), 0.01, 1e-6);  // the sync returns 10 us after the last kernel
    EXPECT_EQ(p.top[0].name, "volta_sgemm_128x64_nn");
    EXPECT_EQ(p.top[0].count, 5);
    // The first kernel followed its launch (issued at 0, ending at 8 us, started at 90 us).
    EXPECT_NEAR(Kind(p, PathKind::kLaunch), 0.09, 1e-6);
  }
}

// A sync wait: one 8 ms kernel; the host synchronises on its stream, then computes 2 ms.
TEST(CriticalPath, StreamSynchronizeWaitsOnTheKernel) {
  std::string ev;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += Step(s, t0, 10000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0, 10, Corr(s + 1));
    ev += Kernel("implicit_convolve_sgemm", 7, t0 + 20, 7980, s + 1);
    ev += X("cuda_runtime", "cudaStreamSynchronize", 1, 1, t0 + 15, 7995);
    ev += X("cpu_op", "aten::copy_", 1, 1, t0 + 8010, 1990);
  }
  const CriticalPathSummary c = PathOf(Import(Doc(ev)));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_NEAR(Kind(p, PathKind::kHost), 1.99, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kWait), 0.01, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kKernel), 7.98, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kLaunch), 0.02, 1e-6);  // the call (10 us) and its latency (10 us)
    EXPECT_TRUE(OnPath(p, PathKind::kWait, "cudaStreamSynchronize"));
    EXPECT_TRUE(OnPath(p, PathKind::kKernel, "implicit_convolve_sgemm"));
  }
}

// A CUDA graph launch: one cudaGraphLaunch, four kernels under its correlation id on two streams;
// the last on stream 7 waits for stream 8's longer kernel (an event wait inside the graph).
std::string GraphSteps(const char* launch, const char* sync) {
  std::string ev;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0, c = 100 + s;
    ev += Step(s, t0, 9000);
    ev += X("cuda_runtime", launch, 1, 1, t0, 20, Corr(int(c)));
    ev += Kernel("graph_k1", 7, t0 + 30, 1000, int(c));
    ev += Kernel("graph_k2", 7, t0 + 1030, 1000, int(c));
    ev += Kernel("graph_side", 8, t0 + 40, 5000, int(c));
    ev += Kernel("graph_k3", 7, t0 + 5050, 3900, int(c));  // after graph_side (5040), not graph_k2 (2030)
    ev += X("cuda_runtime", sync, 1, 1, t0 + 25, 8975);
  }
  return Doc(ev);
}

TEST(CriticalPath, CudaGraphKernelsShareOneCorrelationId) {
  const CriticalPathSummary c = PathOf(Import(GraphSteps("cudaGraphLaunch", "cudaDeviceSynchronize")));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_TRUE(OnPath(p, PathKind::kKernel, "graph_k3"));
    EXPECT_TRUE(OnPath(p, PathKind::kKernel, "graph_side"));
    EXPECT_FALSE(OnPath(p, PathKind::kKernel, "graph_k2"));  // off the path: stream 8 held graph_k3
    EXPECT_TRUE(OnPath(p, PathKind::kLaunch, "cudaGraphLaunch"));
    EXPECT_TRUE(OnPath(p, PathKind::kWait, "(wait on another stream)"));
    EXPECT_NEAR(Kind(p, PathKind::kKernel), 3.9 + 5.0, 1e-6);
  }
}

// The same on AMD: HIP runtime names, a hipGraphLaunch, and a step that ends in a blocking
// hipMemcpyWithStream of the result.
TEST(CriticalPath, HipGraphAndBlockingCopy) {
  const CriticalPathSummary g = PathOf(Import(GraphSteps("hipGraphLaunch", "hipDeviceSynchronize")));
  ASSERT_EQ(g.steps.size(), 3u);
  ExpectWellFormed(g);
  for (const auto& p : g.steps) {
    EXPECT_TRUE(OnPath(p, PathKind::kLaunch, "hipGraphLaunch"));
    EXPECT_TRUE(OnPath(p, PathKind::kWait, "hipDeviceSynchronize"));
  }
  std::string ev;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += Step(s, t0, 6000);
    ev += X("cuda_runtime", "hipLaunchKernel", 1, 1, t0, 10, Corr(10 * s + 1));
    ev += Kernel("Cijk_Ailk_Bljk_SB_MT64x64", 0, t0 + 20, 4000, 10 * s + 1);
    ev += X("cuda_runtime", "hipMemcpyWithStream", 1, 1, t0 + 15, 5985, Corr(10 * s + 2));
    ev += Kernel("Memcpy DtoH (Device -> Host)", 0, t0 + 4020, 1970, 10 * s + 2, "gpu_memcpy");
  }
  const CriticalPathSummary c = PathOf(Import(Doc(ev)));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_NEAR(Kind(p, PathKind::kCopy), 1.97, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kKernel), 4.0, 1e-6);
    EXPECT_NEAR(Kind(p, PathKind::kWait), 0.01, 1e-6);  // the copy's end to the call's return
    EXPECT_TRUE(OnPath(p, PathKind::kLaunch, "hipLaunchKernel"));
  }
}

// `whatif --format json` lists every step's path with its segments.
// PyTorch's backward runs on the autograd thread while the main thread records nothing: each 10
// ms step is a 2 ms forward, four 1.5 ms backward ops 0.4 ms apart on thread 2, then a 0.5 ms
// optimizer op on the main thread 0.3 ms after the last. When the main thread's silence ends in
// a gap between two backward ops, the path still follows them: the silence is not all untraced.
TEST(CriticalPath, MainThreadSilenceFollowsTheAutogradThreadAcrossItsGaps) {
  std::string ev;
  int corr = 1;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += Step(s, t0, 10000);
    ev += X("cpu_op", "aten::mm", 1, 1, t0, 2000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 1900, 50, Corr(corr));
    ev += Kernel("gemm_kernel", 7, t0 + 1960, 20, corr++);
    for (int k = 0; k < 4; ++k, ++corr) {
      const double b = t0 + 2000 + k * 1900;
      ev += X("cpu_op", "MmBackward0", 1, 2, b, 1500);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 2, b + 1400, 50, Corr(corr));
      ev += Kernel("gemm_kernel", 7, b + 1460, 20, corr);
    }
    ev += X("cpu_op", "aten::add_", 1, 1, t0 + 9500, 500);
  }
  const CriticalPathSummary c = PathOf(Import(Doc(ev)));
  ASSERT_EQ(c.steps.size(), 3u);
  ExpectWellFormed(c);
  for (const auto& p : c.steps) {
    EXPECT_TRUE(OnPath(p, PathKind::kHost, "MmBackward0")) << p.step;
    // Untraced: the 0.3 ms before the optimizer and the three 0.4 ms gaps, not the 7.5 ms silence.
    double untraced = 0;
    for (const auto& seg : p.segments)
      if (seg.name == "(untraced)") untraced += seg.dur_ms;
    EXPECT_LT(untraced, 2.0) << p.step;
  }
}

TEST(CriticalPath, InWhatIfJson) {
  const Trace t = Import(GraphSteps("cudaGraphLaunch", "cudaDeviceSynchronize"));
  auto fix = ParseFix("launch");
  ASSERT_TRUE(fix.ok());
  const WhatIfReport r = TraceToWhatIf(t, {*fix}, {});
  ASSERT_EQ(r.critical_path.steps.size(), 3u);
  const std::string json = RenderWhatIfJson(r);
  const size_t top = json.rfind("\"critical_path\": [");
  ASSERT_NE(top, std::string::npos);
  EXPECT_NE(json.find("\"segments\"", top), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"graph_side\"", top), std::string::npos);
}

// The Markdown report (pull requests) carries the median step's path and the top operators'
// kernels too, with the same figures as the report.
TEST(CriticalPath, InMarkdown) {
  const Report r = AnalyzeTrace(Import(GraphSteps("cudaGraphLaunch", "cudaDeviceSynchronize")));
  ASSERT_TRUE(r.critical_path && r.critical_path->median_index >= 0);
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("### Critical path (median step)"), std::string::npos) << md;
  const StepCriticalPath& p = r.critical_path->steps[size_t(r.critical_path->median_index)];
  ASSERT_FALSE(p.top.empty());
  EXPECT_NE(md.find("| " + render::MdText(p.top[0].name) + " | " + PathKindName(p.top[0].kind) + " |"), std::string::npos) << md;
}

// Corpus traces: every path is as long as its step (within 1%), inside it, and its kernels are
// device work of that step's trace.
void ExpectCorpusProperties(const std::string& path, size_t min_steps) {
  auto imported = ImportPaths({path});
  ASSERT_TRUE(imported.ok()) << imported.message();
  const Trace& t = imported->trace;
  const StepModel m = TraceToPrimaryStepModel(t, {});
  const CriticalPathSummary c = TraceToCriticalPath(t, PrimaryWorker(t), m, PathSegments::kAll);
  ASSERT_GE(c.steps.size(), min_steps);
  ExpectWellFormed(c);
  const double lo_ms = double(m.lo()) / 1e6;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const StepCriticalPath& p = c.steps[i];
    std::set<std::string> step_ops;
    for (const DeviceOp& op : m.device)
      if (op.start_ns < m.steps[i].end_ns && op.start_ns + op.dur_ns > m.steps[i].start_ns)
        step_ops.insert(std::string(t.str(op.name)));
    for (const auto& s : p.segments) {
      if (s.kind != PathKind::kKernel && s.kind != PathKind::kCopy) continue;
      EXPECT_TRUE(step_ops.count(s.name)) << s.name << " is not device work of step " << p.step;
      EXPECT_GE(s.start_ms + lo_ms + s.dur_ms, double(m.steps[i].start_ns) / 1e6 - 1e-6);
    }
  }
}

TEST(CriticalPath, CorpusResNetSteps) {
  SD_CORPUS_OR_SKIP(p, "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz");
  ExpectCorpusProperties(p, 2);
}

TEST(CriticalPath, CorpusAlexNet) {
  SD_CORPUS_OR_SKIP(p, "hta-testdata/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
  ExpectCorpusProperties(p, 1);
}

TEST(CriticalPath, CorpusAmdMi250) {
  SD_CORPUS_OR_SKIP(p, "hta-testdata/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  ExpectCorpusProperties(p, 1);
}

// vLLM decode on MI300X: one hipGraphLaunch of ~420 kernels. The device starts 8.4 ms into the
// window, after the host is done, and is then busy 99% of the time to the window's end: from its
// first operation on, the path is the device's work.
TEST(CriticalPath, CorpusHipGraphReplayIsDeviceBound) {
  SD_CORPUS_OR_SKIP(p, "wild/vllm_decode_full_graph_execution.json.gz");
  ExpectCorpusProperties(p, 1);
  auto imported = ImportPaths({p});
  ASSERT_TRUE(imported.ok());
  const StepModel m = TraceToPrimaryStepModel(imported->trace, {});
  const CriticalPathSummary c = TraceToCriticalPath(imported->trace, PrimaryWorker(imported->trace), m, PathSegments::kAll);
  ASSERT_EQ(c.steps.size(), 1u);
  ASSERT_FALSE(m.device.empty());
  const StepCriticalPath& s = c.steps[0];
  const double device_span_ms = double(m.steps[0].end_ns - m.device.front().start_ns) / 1e6;
  EXPECT_GT(Kind(s, PathKind::kKernel) + Kind(s, PathKind::kCopy), 0.95 * device_span_ms);
  int64_t kernels = 0;
  for (const auto& g : s.segments) kernels += g.kind == PathKind::kKernel ? g.parts : 0;
  EXPECT_GT(kernels, 100);
}

// A kernel that starts long after its launch on an idle stream (nothing recorded held it, the
// host blocked in a synchronize meanwhile): the delay is the device's queue, not launch cost; a
// short launch-to-start delay stays launch.
TEST(CriticalPath, ALongDelayAfterTheLaunchOnAnIdleStreamIsQueuedNotLaunch) {
  auto doc = [](double delay_us) {
    std::string ev;
    for (int s = 0; s < 3; ++s) {
      const double t0 = s * 20000.0;
      ev += Step(s, t0, 20000);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 100, 10, Corr(s + 1));
      ev += Kernel("gemm", 7, t0 + 110 + delay_us, 2000, s + 1);
      ev += X("cuda_runtime", "cudaStreamSynchronize", 1, 1, t0 + 200, delay_us + 2000);
    }
    return Doc(ev);
  };
  CriticalPathSummary queued = PathOf(Import(doc(8000)));
  ASSERT_FALSE(queued.steps.empty());
  ExpectWellFormed(queued);
  EXPECT_GT(Kind(queued.steps[0], PathKind::kWait), 7.5);
  EXPECT_LT(Kind(queued.steps[0], PathKind::kLaunch), 0.5);
  CriticalPathSummary prompt = PathOf(Import(doc(200)));
  ASSERT_FALSE(prompt.steps.empty());
  EXPECT_GT(Kind(prompt.steps[0], PathKind::kLaunch), 0.15);
  EXPECT_LT(Kind(prompt.steps[0], PathKind::kWait), 0.15);  // the synchronize returning after the kernel
}

}  // namespace
}  // namespace stepdoctor
