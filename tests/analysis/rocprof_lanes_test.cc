// rocprof's --hip-trace JSON (rocprofiler v1): its lanes are processes named "CPU HIP API",
// "COPY" and "GPU<N>" (agents), with no categories and pids and times as strings. Its kernels and
// copies are device work.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/io/byte_source.h"

namespace stepdoctor {
namespace {

Report AnalyzeJson(const std::string& json, Trace* keep) {
  Trace t;
  auto src = MemorySource(json, "results.json");
  Status st = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(st.ok()) << st.message();
  Report r = AnalyzeTrace(t);
  *keep = std::move(t);
  return r;
}

// rocprof's --hip-trace JSON: agents named "GPU2" (no space), no categories, pids and times as
// strings; the HIP API calls on a process of their own. Its kernels and copies are device work.
TEST(RocprofLanes, AgentsAreDevices) {
  std::string ev = ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"CPU HIP API\"}}"
                   ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":8,\"args\":{\"name\":\"GPU2\"}}";
  for (int i = 0; i < 4; ++i) {
    const std::string t0 = std::to_string(1000 + i * 1000);
    ev += ",{\"ph\":\"X\",\"name\":\"hipLaunchKernel\",\"pid\":\"2\",\"tid\":\"517\",\"ts\":\"" + t0 +
          "\",\"dur\":\"20\"}";
    ev += ",{\"ph\":\"X\",\"name\":\"void at::native::elementwise_kernel<128, 4>(int)\",\"pid\":\"8\","
          "\"tid\":\"0\",\"ts\":\"" + std::to_string(1030 + i * 1000) + "\",\"dur\":\"500\"}";
  }
  Trace t;
  Report r = AnalyzeJson("{\"traceEvents\":[" + ev.substr(1) + "]}", &t);
  EXPECT_EQ(r.coverage.device_activity, "captured");
  bool gpu2 = false;
  for (const auto& tl : t.timelines)
    if (tl.device.valid() && t.device(tl.device).kind == DeviceKind::kGpu && t.device(tl.device).index == 2) {
      gpu2 = true;
      EXPECT_EQ(tl.kind, TimelineKind::kDeviceStream);
      for (size_t i = 0; i < tl.ev.size(); ++i) EXPECT_EQ(tl.ev.kind[i], EventKind::kKernel);
    }
  EXPECT_TRUE(gpu2);
}

// rocprof's COPY process holds the device's asynchronous copies, each the end ('t', DataFlow) of
// an arrow from the HIP call that issued it: a device lane, its copies device copies. The same
// lane with no arrows ending in it stays a host thread.
TEST(RocprofLanes, CopyLaneEndingItsFlowsIsDeviceCopies) {
  auto trace = [](bool flows) {
    std::string ev = ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"CPU HIP API\"}}"
                     ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"COPY\"}}";
    for (int i = 0; i < 4; ++i) {
      const std::string t0 = std::to_string(1000 + i * 1000), t1 = std::to_string(1030 + i * 1000), id = std::to_string(i);
      ev += ",{\"ph\":\"X\",\"name\":\"hipMemcpyWithStream\",\"pid\":\"2\",\"tid\":\"517\",\"ts\":\"" + t0 +
            "\",\"dur\":\"400\"}";
      ev += ",{\"ph\":\"X\",\"name\":\"CopyHostToDevice\",\"pid\":\"1\",\"tid\":\"1\",\"ts\":\"" + t1 +
            "\",\"dur\":\"300\",\"args\":{\"dev-id\":\"2\",\"queue-id\":\"0\"}}";
      if (flows)
        ev += ",{\"ph\":\"s\",\"cat\":\"DataFlow\",\"id\":" + id + ",\"pid\":2,\"tid\":517,\"ts\":" + t0 +
              ",\"name\":\"dep\"},{\"ph\":\"t\",\"cat\":\"DataFlow\",\"id\":" + id + ",\"pid\":1,\"tid\":1,\"ts\":" +
              t1 + ",\"name\":\"dep\"}";
    }
    Trace t;
    AnalyzeJson("{\"traceEvents\":[" + ev.substr(1) + "]}", &t);
    return t;
  };
  auto copies_on_device = [](const Trace& t) {
    int n = 0;
    for (const auto& tl : t.timelines)
      if (tl.kind == TimelineKind::kDeviceStream)
        for (size_t i = 0; i < tl.ev.size(); ++i) n += tl.ev.kind[i] == EventKind::kMemcpyH2D;
    return n;
  };
  EXPECT_EQ(copies_on_device(trace(true)), 4);
  EXPECT_EQ(copies_on_device(trace(false)), 0);
}

}  // namespace
}  // namespace stepdoctor
