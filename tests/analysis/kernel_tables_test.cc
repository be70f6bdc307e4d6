// The kernel tables (analysis/trace_to_kernel_tables): an operator's kernels found through the
// launches it encloses, with a known launch delay and one outlier; the compute / communication /
// memory split; a stream's queue of launched, not started kernels with known numbers; and the
// same tables in the diagnose report's JSON.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_kernel_tables.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/render/render.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

Trace Import(const std::string& json) { return testing::ImportChrome(json); }

std::string Kernel(const char* name, double ts, double dur, int corr, const char* cat = "kernel") {
  return X(cat, name, 0, 7, ts, dur, "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
}

KernelTables Tables(const Trace& t, const std::vector<std::string>& ops) {
  std::vector<TopEvent> top;
  for (const auto& o : ops) top.push_back({o, 0, 0, 0});
  return TraceToKernelTables(t, PrimaryWorker(t), top, 0);
}

// 21 aten::mm calls, each launching one GEMM 50 us after the launch starts, except the last,
// whose kernel starts 5 ms after its launch: median 50 us, threshold max(10 x 50 us, 1 ms) = 1 ms.
std::string MmTrace() {
  std::string ev;
  for (int i = 0; i < 21; ++i) {
    const double t = i * 10000.0;
    ev += X("cpu_op", "aten::mm", 1, 1, t, 100);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 20, 10, Corr(i + 1));
    ev += Kernel("ampere_sgemm_64x32", t + 20 + (i == 20 ? 5000 : 50), 200, i + 1);
  }
  ev += X("cpu_op", "aten::relu", 1, 1, 300000, 10);  // launches nothing
  return Doc(ev);
}

TEST(KernelTables, OpKernelsWithKnownDelayAndOneOutlier) {
  const KernelTables k = Tables(Import(MmTrace()), {"aten::mm", "aten::relu"});
  ASSERT_EQ(k.ops.size(), 2u);
  const OpKernels& mm = k.ops[0];
  EXPECT_EQ(mm.op, "aten::mm");
  EXPECT_EQ(mm.op_count, 21);
  EXPECT_EQ(mm.kernels, 21);
  EXPECT_NEAR(mm.device_ms, 21 * 0.2, 1e-9);
  EXPECT_NEAR(mm.mean_delay_us, (20 * 50.0 + 5000) / 21, 1e-6);
  ASSERT_EQ(mm.rows.size(), 1u);
  EXPECT_EQ(mm.rows[0].kernel, "ampere_sgemm_64x32");
  EXPECT_EQ(k.ops[1].kernels, 0);
  EXPECT_EQ(k.delays, 21);
  EXPECT_NEAR(k.median_delay_us, 50, 1e-9);
  EXPECT_NEAR(k.outlier_threshold_us, kDelayOutlierFloorUs, 1e-9);
  EXPECT_EQ(k.outlier_count, 1);
  ASSERT_EQ(k.outliers.size(), 1u);
  EXPECT_NEAR(k.outliers[0].delay_us, 5000, 1e-6);
  EXPECT_EQ(k.outliers[0].launch, "cudaLaunchKernel");
  EXPECT_NEAR(k.outliers[0].at_ms, 200.02, 1e-6);
}

// Under a graph launch only the graph's first kernel has a launch delay.
TEST(KernelTables, GraphKernelsAfterTheFirstHaveNoLaunchDelay) {
  std::string ev = X("cuda_runtime", "cudaGraphLaunch", 1, 1, 0, 10, Corr(5));
  for (int i = 0; i < 4; ++i) ev += Kernel("graph_kernel", 30 + 1000 * i, 1000, 5);
  const KernelTables k = Tables(Import(Doc(ev)), {});
  EXPECT_EQ(k.delays, 1);
  EXPECT_NEAR(k.median_delay_us, 30, 1e-9);
  EXPECT_EQ(k.outlier_count, 0);
}

TEST(KernelTables, ComputeCommunicationMemorySplit) {
  std::string ev;
  ev += Kernel("ampere_sgemm_64x32", 0, 100, 1);
  ev += Kernel("ampere_sgemm_64x32", 200, 300, 2);
  ev += Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 600, 1000, 3);
  ev += Kernel("Memcpy HtoD (Pageable -> Device)", 2000, 50, 4, "gpu_memcpy");
  ev += Kernel("Memset (Device)", 2100, 10, 5, "gpu_memset");
  const KernelTables k = Tables(Import(Doc(ev)), {});
  ASSERT_EQ(k.classes.size(), 3u);
  EXPECT_EQ(k.classes[0].work_class, "compute");
  EXPECT_EQ(k.classes[0].count, 2);
  EXPECT_NEAR(k.classes[0].mean_us, 200, 1e-9);
  EXPECT_NEAR(k.classes[0].min_us, 100, 1e-9);
  EXPECT_NEAR(k.classes[0].max_us, 300, 1e-9);
  EXPECT_EQ(k.classes[1].work_class, "communication");
  EXPECT_EQ(k.classes[1].count, 1);
  EXPECT_NEAR(k.classes[1].total_ms, 1.0, 1e-9);
  EXPECT_EQ(k.classes[2].work_class, "memory");
  EXPECT_EQ(k.classes[2].count, 2);
  EXPECT_NEAR(k.classes[2].min_us, 10, 1e-9);
  EXPECT_NEAR(k.classes[2].max_us, 50, 1e-9);
}

// Four launches 0.1 ms apart outrun four 1 ms kernels that start at 0.5 ms: the queue reaches 4
// (0.3-0.5 ms), and over 0-3.5 ms (first launch to last start) holds 7.4 kernel-ms, a mean of 2.114.
TEST(KernelTables, StreamQueueLength) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 100 * i, 50, Corr(i + 1));
    ev += Kernel("k", 500 + 1000 * i, 1000, i + 1);
  }
  const KernelTables k = Tables(Import(Doc(ev)), {});
  ASSERT_EQ(k.queues.size(), 1u);
  EXPECT_EQ(k.queues[0].max_queued, 4);
  EXPECT_NEAR(k.queues[0].mean_queued, 7.4 / 3.5, 1e-9);
  EXPECT_NE(k.queues[0].stream.find("GPU 0"), std::string::npos);
}

// The diagnose report carries both, and its JSON and text show them.
// Launches that outrun the device: five 10 ms GEMMs launched 20 us apart wait behind each other;
// the part of each delay the stream was busy is the queue, and the text names it. Kernels spaced
// apart (MmTrace) have no queue.
TEST(KernelTables, TheQueuedPartOfTheLaunchDelayBothSides) {
  std::string ev;
  for (int i = 0; i < 5; ++i) {
    ev += X("cpu_op", "aten::mm", 1, 1, i * 30.0, 25);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 30.0 + 5, 10, Corr(i + 1));
    ev += Kernel("ampere_sgemm_128x64", 100 + i * 10000.0, 10000, i + 1);
  }
  KernelTables deep = Tables(Import(Doc(ev)), {"aten::mm"});
  ASSERT_EQ(deep.delays, 5);
  EXPECT_NEAR(deep.median_delay_us, 20035, 1e-6);  // the third GEMM: launched at 65 us, started at 20100
  EXPECT_NEAR(deep.median_queued_us, 20035, 1e-6);  // all of it behind the second GEMM, which ended at 20100
  EXPECT_NE(QueuedDelayText(deep).find("waiting behind earlier work"), std::string::npos);
  KernelTables spaced = Tables(Import(MmTrace()), {"aten::mm"});
  EXPECT_NEAR(spaced.median_queued_us, 0, 1e-9);
  EXPECT_TRUE(QueuedDelayText(spaced).empty());
}

// The first kernel on a stream has nothing ahead of it there: none of its launch delay is queued
// behind earlier work (the stream's free time is then unset: subtracting from it overflowed and
// counted the whole delay as queued).
TEST(KernelTables, TheFirstKernelOnAStreamWaitsBehindNothing) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    const int stream = 7 + i;
    ev += X("cpu_op", "aten::mm", 1, 1, i * 100.0, 50);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 100.0 + 5, 10, Corr(i + 1));
    ev += X("kernel", "ampere_sgemm_128x64", 0, stream, i * 100.0 + 5005, 300,
            "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":" + std::to_string(stream) + ",\"device\":0}");
  }
  KernelTables t = Tables(Import(Doc(ev)), {"aten::mm"});
  ASSERT_EQ(t.delays, 3);
  EXPECT_NEAR(t.median_delay_us, 5000, 1e-6);
  EXPECT_NEAR(t.median_queued_us, 0, 1e-9);
}

// Kernels launched where no operator encloses the call (an extension's kernel launched from
// Python): their device time is counted apart and named where it is 10% or more.
TEST(KernelTables, DeviceTimeNoOperatorEnclosesThresholdBothSides) {
  auto trace = [](double bare_us) {
    std::string ev = X("cpu_op", "aten::mm", 1, 1, 0, 100);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 10, Corr(1));
    ev += Kernel("ampere_sgemm_64x32", 50, 1000, 1);
    ev += X("cuda_runtime", "cuLaunchKernel", 1, 1, 200, 10, Corr(2));  // no operator around it
    ev += Kernel("matmul_k", 1100, bare_us, 2);
    return Doc(ev);
  };
  KernelTables big = Tables(Import(trace(9000)), {"aten::mm"});
  EXPECT_NEAR(big.device_ms, 10.0, 1e-9);
  EXPECT_NEAR(big.unenclosed_ms, 9.0, 1e-9);
  EXPECT_NE(UnenclosedText(big).find("(90.0%) was launched by calls no operator encloses"), std::string::npos);
  KernelTables small = Tables(Import(trace(100)), {"aten::mm"});  // 100 of 1100 us: 9.1%
  EXPECT_NEAR(small.unenclosed_ms, 0.1, 1e-9);
  EXPECT_LT(100.0 * small.unenclosed_ms / small.device_ms, kUnenclosedNotePct);
  EXPECT_TRUE(UnenclosedText(small).empty());
}

TEST(KernelTables, InTheDiagnoseReport) {
  std::string ev;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 10000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(s)).c_str(), 1, 1, t0, 9000);
    ev += X("cpu_op", "aten::mm", 1, 1, t0, 30);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 10, 10, Corr(s + 1));
    ev += Kernel("ampere_sgemm_64x32", t0 + 40, 8000, s + 1);
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t0 + 30, 8970);
  }
  const Report r = AnalyzeTrace(Import(Doc(ev)), {});
  ASSERT_TRUE(r.critical_path.has_value());
  ASSERT_TRUE(r.kernel_tables.has_value());
  ASSERT_EQ(r.critical_path->steps.size(), 3u);
  const StepCriticalPath& m = r.critical_path->steps[size_t(r.critical_path->median_index)];
  EXPECT_FALSE(m.segments.empty());
  EXPECT_NEAR(m.kind_ms[size_t(PathKind::kKernel)], 8.0, 1e-6);
  const std::string json = RenderJson(r, {});
  EXPECT_NE(json.find("\"critical_path\": {"), std::string::npos);
  EXPECT_NE(json.find("\"median_segments\""), std::string::npos);
  EXPECT_NE(json.find("\"kernel_tables\": {"), std::string::npos);
  const std::string text = RenderText(r, {});
  EXPECT_NE(text.find("Critical path (median step)"), std::string::npos);
  EXPECT_NE(text.find("Kernels of the top operators"), std::string::npos);
  EXPECT_NE(text.find("ampere_sgemm_64x32"), std::string::npos);
  const std::string html = RenderHtml(r, {});
  EXPECT_NE(html.find("class=\"critical-lane\""), std::string::npos);
  EXPECT_NE(html.find("id=\"op-kernels\""), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
