// Device lanes recognised by what they hold (importers/chrome/chrome_device_lanes.h): a tracer
// of device activity alone writes a bare array of copies and kernels with no categories or
// process names. Decided per lane: a host lane with one kernel-named operator stays a host lane,
// and a lane with categories keeps what they say. Small inputs built in the test.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_device_lanes.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/device_work_classify.h"

namespace stepdoctor {
namespace {

constexpr const char* kKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, std::array<char*, 2ul>)";

// One event without a category, as such tracers write it; `corr` 0 writes no correlation id.
std::string Ev(const std::string& name, int pid, int tid, double ts, double dur, int corr, bool first = false) {
  std::string args = corr ? ",\"args\":{\"correlationId\":" + std::to_string(corr) + "}" : "";
  return std::string(first ? "" : ",") + "{\"name\":\"" + name + "\",\"ph\":\"X\",\"ts\":" + std::to_string(ts) +
         ",\"dur\":" + std::to_string(dur) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
         args + "}";
}

// `iters` iterations of copy in, kernel, copy out on pid 1 tid 7, 10 ms apart.
std::string CopyKernelCopy(int iters, bool corr = true) {
  std::string ev;
  int c = 0;
  for (int i = 0; i < iters; ++i) {
    double t = i * 10000.0;
    ev += Ev("[MEMCPY] HtoD", 1, 7, t, 800, corr ? ++c : 0, i == 0);
    ev += Ev(kKernel, 1, 7, t + 900, 30, corr ? ++c : 0);
    ev += Ev("[MEMCPY] DtoH", 1, 7, t + 1000, 6000, corr ? ++c : 0);
  }
  return ev;
}

Trace Import(const std::string& json) {
  Trace t;
  auto src = MemorySource(json, "inline.json");
  Status st = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

const Timeline* Lane(const Trace& t, int64_t tid) {
  for (const auto& tl : t.timelines)
    if (tl.tid == tid) return &tl;
  return nullptr;
}

bool OnGpu(const Trace& t, const Timeline& tl) {
  return tl.kind == TimelineKind::kDeviceStream && t.devices[tl.device.v].kind == DeviceKind::kGpu;
}

TEST(DeviceShapedNames, CopiesKernelsAndLibrariesYesHostCallsNo) {
  for (const char* n : {"[MEMCPY] HtoD", "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "[CUDA memcpy DtoH]",
                        "[CUDA memset]", kKernel, "elementwise_kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                        "ampere_sgemm_128x64_nn", "sm80_xmma_gemm_f16f16_f16f32", "cutlass::Kernel<foo>",
                        "triton_poi_fused_add_0"})
    EXPECT_TRUE(IsDeviceWorkShapedName(n)) << n;
  for (const char* n : {"aten::mm", "aten::_foreach_kernel", "cudaLaunchKernel", "cudaMemcpyAsync", "cuMemcpyHtoD_v2",
                        "cublasSgemm_v2", "cudnnConvolutionForward", "ncclAllReduce", "forward", "Optimizer.step#SGD.step", ""})
    EXPECT_FALSE(IsDeviceWorkShapedName(n)) << n;
}

TEST(DeviceShapedLanes, BareArrayOfCopiesAndKernelsIsAGpuStream) {
  Trace t = Import("[" + CopyKernelCopy(5) + "]");
  const Timeline* tl = Lane(t, 7);
  ASSERT_NE(tl, nullptr);
  EXPECT_TRUE(OnGpu(t, *tl));
  int h2d = 0, d2h = 0, kernels = 0;
  for (EventKind k : tl->ev.kind) {
    h2d += k == EventKind::kMemcpyH2D;
    d2h += k == EventKind::kMemcpyD2H;
    kernels += k == EventKind::kKernel;
  }
  EXPECT_EQ(h2d, 5);
  EXPECT_EQ(d2h, 5);
  EXPECT_EQ(kernels, 5);
}

TEST(DeviceShapedLanes, ReportCountsCopiesAsCopiesAndSaysThereAreNoHostEvents) {
  Trace t = Import("[" + CopyKernelCopy(5) + "]");
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.coverage.device_activity, "captured");
  double memcpy = 0, compute = 0, host = 0;
  for (const auto& b : r.breakdown) {
    if (b.category == "memcpy") memcpy = b.ms_per_step;
    if (b.category == "device_compute") compute = b.ms_per_step;
    if (b.category == "host_compute") host = b.ms_per_step;
  }
  // Each copy in, kernel, copy out is one iteration (analysis/repeated_iterations): figures per step.
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_NEAR(memcpy, 6.8, 0.01);
  EXPECT_NEAR(compute, 0.03, 0.01);
  EXPECT_EQ(host, 0) << "short gaps with no host event are not host overhead";
  bool note = false;
  for (const auto& n : r.notes) note |= n.rfind("no host events", 0) == 0;
  EXPECT_TRUE(note);
  for (const auto& op : r.top_ops) EXPECT_EQ(op.name.find("kernel"), std::string::npos) << op.name;
}

// One host lane with a kernel-named operator among ordinary ones stays the host's.
TEST(DeviceShapedLanes, OneKernelNamedOperatorLeavesAHostLaneAlone) {
  std::string ev = Ev("forward", 1, 3, 0, 100, 1, true);
  for (int i = 0; i < 8; ++i) ev += Ev("compute_step", 1, 3, 200.0 + i * 100, 50, 2 + i);
  ev += Ev("launch_my_kernel", 1, 3, 1200, 50, 20);
  Trace t = Import("[" + ev + "]");
  const Timeline* tl = Lane(t, 3);
  ASSERT_NE(tl, nullptr);
  EXPECT_EQ(tl->kind, TimelineKind::kHostThread);
}

TEST(DeviceShapedLanes, CategoriesOrNamesKeepTheirSay) {
  // The same events under a host category: categories decide.
  std::string ev;
  for (int i = 0; i < 4; ++i)
    ev += std::string(i ? "," : "") + "{\"name\":\"[MEMCPY] HtoD\",\"cat\":\"cpu_op\",\"ph\":\"X\",\"ts\":" +
          std::to_string(i * 100) + ",\"dur\":50,\"pid\":1,\"tid\":7,\"args\":{\"correlationId\":" + std::to_string(i + 1) + "}}";
  Trace cat = Import("[" + ev + "]");
  EXPECT_EQ(Lane(cat, 7)->kind, TimelineKind::kHostThread);
  // A thread named as the host's, or a named process, says otherwise too.
  auto meta = [](const char* what, const char* name) {
    return std::string(",{\"ph\":\"M\",\"name\":\"") + what + "\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"" + name + "\"}}";
  };
  Trace thread = Import("[" + CopyKernelCopy(3) + meta("thread_name", "MainThread") + "]");
  EXPECT_EQ(Lane(thread, 7)->kind, TimelineKind::kHostThread);
  Trace process = Import("[" + CopyKernelCopy(3) + meta("process_name", "python") + "]");
  EXPECT_EQ(Lane(process, 7)->kind, TimelineKind::kHostThread);
  Trace stream = Import("[" + CopyKernelCopy(3) + meta("thread_name", "stream 7") + "]");
  EXPECT_TRUE(OnGpu(stream, *Lane(stream, 7)));
}

TEST(DeviceShapedLanes, ThresholdsBothSides) {
  using chrome::DeviceShapedCounts;
  using chrome::IsDeviceShapedLane;
  const size_t n = 100;
  const size_t at = size_t(chrome::kDeviceShapedLaneMinShare * n);
  EXPECT_TRUE(IsDeviceShapedLane(DeviceShapedCounts{n, at, at}));
  EXPECT_FALSE(IsDeviceShapedLane(DeviceShapedCounts{n, at - 1, at - 1}));
  const size_t corr = size_t(chrome::kDeviceShapedLaneMinCorrelatedShare * n);
  EXPECT_TRUE(IsDeviceShapedLane(DeviceShapedCounts{n, n, corr}));
  EXPECT_FALSE(IsDeviceShapedLane(DeviceShapedCounts{n, n, corr - 1}));
  const size_t few = chrome::kDeviceShapedLaneMinSpans;
  EXPECT_TRUE(IsDeviceShapedLane(DeviceShapedCounts{few, few, few}));
  EXPECT_FALSE(IsDeviceShapedLane(DeviceShapedCounts{few - 1, few - 1, few - 1}));
  // Through the importer: without correlation ids, the lane is not claimed.
  Trace none = Import("[" + CopyKernelCopy(3, false) + "]");
  EXPECT_EQ(Lane(none, 7)->kind, TimelineKind::kHostThread);
  // One iteration is three spans: enough; two spans are not.
  Trace one = Import("[" + CopyKernelCopy(1) + "]");
  EXPECT_TRUE(OnGpu(one, *Lane(one, 7)));
  Trace two = Import("[" + Ev("[MEMCPY] HtoD", 1, 7, 0, 800, 1, true) + Ev(kKernel, 1, 7, 900, 30, 2) + "]");
  EXPECT_EQ(Lane(two, 7)->kind, TimelineKind::kHostThread);
}

}  // namespace
}  // namespace stepdoctor
