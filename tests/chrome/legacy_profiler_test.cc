// The autograd profiler's own export (no Kineto): "CPU functions" hold the operators, and with
// use_cuda=True "CUDA functions" hold each operator's device time, nested as the operators are.
// That lane is the device's, busy where its outermost spans are; its copies are copies; steps are
// found from the batch's copy that starts each iteration; precision is not claimed.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/legacy_profiler_lanes.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using chrome::LegacyDeviceLaneOf;

TEST(LegacyProfiler, DeviceLanesByTheirProcessName) {
  EXPECT_EQ(LegacyDeviceLaneOf("CUDA functions", 1).kind, DeviceKind::kGpu);
  EXPECT_EQ(LegacyDeviceLaneOf("CUDA functions", 1).index, 1);
  EXPECT_EQ(LegacyDeviceLaneOf("CUDA Functions", 0).kind, DeviceKind::kGpu);  // the C++ writer's spelling
  const auto xpu = LegacyDeviceLaneOf("XPU functions", 0);
  EXPECT_EQ(xpu.kind, DeviceKind::kOther);
  EXPECT_EQ(xpu.name, "XPU 0");
  EXPECT_EQ(LegacyDeviceLaneOf("CPU functions", 0).kind, DeviceKind::kHostCpu);
  EXPECT_EQ(LegacyDeviceLaneOf("Python functions", 0).kind, DeviceKind::kHostCpu);
  EXPECT_EQ(LegacyDeviceLaneOf("functions", 0).kind, DeviceKind::kHostCpu);
  EXPECT_EQ(LegacyDeviceLaneOf("CUDA", 0).kind, DeviceKind::kHostCpu);
}

// One event of the export, with a leading comma: pid is the lane's name, tid a number.
std::string Ev(const char* pid, const char* name, double ts, double dur, int tid = 0) {
  return std::string(",{\"name\":\"") + name + "\",\"ph\":\"X\",\"ts\":" + std::to_string(ts) +
         ",\"dur\":" + std::to_string(dur) + ",\"tid\":" + std::to_string(tid) + ",\"pid\":\"" + pid + "\",\"args\":{}}";
}
std::string Flow(char ph, const char* pid, const char* name, double ts, int id) {
  return std::string(",{\"name\":\"") + name + "\",\"ph\":\"" + ph + "\",\"ts\":" + std::to_string(ts) +
         ",\"tid\":0,\"pid\":\"" + pid + "\",\"id\":" + std::to_string(id) + ",\"cat\":\"cpu_to_cuda\",\"args\":{}}";
}

// Six iterations: 3 ms of unrecorded Python (loading the batch), then the batch's copy, a
// convolution holding its cuDNN call, and an optimizer op. `gpu` false: the export without
// use_cuda, CPU functions alone.
std::string LegacyLoop(bool gpu) {
  std::string ev;
  double t = 0;
  int id = 1;
  auto op = [&](const char* name, double cpu, double dev, const char* inner = nullptr) {
    ev += Ev("CPU functions", name, t, cpu);
    if (inner) ev += Ev("CPU functions", inner, t + 5, cpu - 10);
    if (gpu && dev > 0) {
      ev += Flow('s', "CPU functions", name, t, id) + Flow('f', "CUDA functions", name, t + 30, id);
      ev += Ev("CUDA functions", name, t + 30, dev);
      if (inner) ev += Ev("CUDA functions", inner, t + 35, dev - 10);
      ++id;
    }
    t += std::max(cpu, dev + 30) + 20;
  };
  for (int i = 0; i < 6; ++i) {
    t += 3000;
    op("aten::to", 300, 200, "aten::copy_");
    op("aten::conv2d", 200, 4000, "aten::_convolution");
    op("aten::relu", 50, 500);
    op("aten::add_", 400, 900);
  }
  return "[" + ev.substr(1) + "]";
}

TEST(LegacyProfiler, CudaFunctionsAreTheDevicesBusyTimePerOperator) {
  Trace trace = testing::ImportChrome(LegacyLoop(true));
  EXPECT_EQ(trace.format, "chrome-json (pytorch autograd profiler)");
  int kernels = 0, annotations = 0, copies = 0;
  for (const auto& t : trace.timelines) {
    if (t.kind != TimelineKind::kDeviceStream) continue;
    EXPECT_EQ(trace.device(t.device).kind, DeviceKind::kGpu);
    for (size_t i = 0; i < t.ev.size(); ++i) {
      kernels += t.ev.kind[i] == EventKind::kKernel;
      annotations += t.ev.kind[i] == EventKind::kDeviceAnnotation;
      copies += t.ev.kind[i] == EventKind::kMemcpyOther;
    }
  }
  EXPECT_EQ(kernels, 18);      // conv2d, relu, add_ per iteration: the outermost
  EXPECT_EQ(annotations, 12);  // copy_ and _convolution, held by their operators' spans
  EXPECT_EQ(copies, 6);        // aten::to
  const Report r = AnalyzeTrace(trace);
  EXPECT_EQ(r.coverage.device_activity, "captured");
  EXPECT_NE(r.coverage.confidence, "high");
  bool per_op = false;
  for (const auto& e : r.coverage.evidence) per_op |= e.find("device time per operator") != std::string::npos;
  EXPECT_TRUE(per_op);
  // Steps from the batch's copy at the head of each iteration (the last one, open-ended, left out).
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_EQ(r.steps.count, 5);
  EXPECT_NEAR(r.steps.median_ms, 8.79, 0.1);
  for (const auto& d : r.breakdown_detail) EXPECT_NE(d.category.rfind("device_compute_", 0), 0u) << d.category;  // precision unknown
  for (const auto& f : r.findings)
    for (const auto& e : f.evidence) EXPECT_EQ(e.label.find("reduced precision"), std::string::npos) << f.id;
}

// A record_function range timed on the device too ("single_conv" around 3 convolutions) holds the
// operators' spans: an annotation, not one long kernel, so the operators stay the device's work.
// Without namespaced operators a name says nothing: the outermost span is the work, as before.
TEST(LegacyProfiler, ARecordFunctionRangeOnTheDeviceIsAnAnnotationBothSides) {
  auto doc = [](const char* conv) {
    std::string ev = Ev("CPU functions", "single_conv", 0, 400) + Ev("CUDA functions", "single_conv", 10, 3100);
    for (int i = 0; i < 3; ++i) {
      ev += Ev("CPU functions", conv, 10 + 100 * i, 80);
      ev += Ev("CUDA functions", conv, 20 + 1000 * i, 990);
    }
    return "[" + ev.substr(1) + "]";
  };
  auto kernels = [](const Trace& trace) {
    std::vector<std::string> names;
    for (const auto& t : trace.timelines)
      if (t.kind == TimelineKind::kDeviceStream)
        for (size_t i = 0; i < t.ev.size(); ++i)
          if (t.ev.kind[i] == EventKind::kKernel) names.push_back(std::string(trace.str(t.ev.name[i])));
    return names;
  };
  const std::vector<std::string> ops = kernels(testing::ImportChrome(doc("aten::conv2d")));
  EXPECT_EQ(ops, std::vector<std::string>(3, "aten::conv2d"));
  const std::vector<std::string> old = kernels(testing::ImportChrome(doc("conv2d")));  // no namespaces
  EXPECT_EQ(old, std::vector<std::string>{"single_conv"});
}

TEST(LegacyProfiler, CpuFunctionsAloneStayCpuOnly) {
  const Report r = AnalyzeTrace(testing::ImportChrome(LegacyLoop(false)));
  EXPECT_EQ(r.coverage.device_activity, "cpu_only");
  for (const auto& e : r.coverage.evidence) EXPECT_EQ(e.find("device time per operator"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
