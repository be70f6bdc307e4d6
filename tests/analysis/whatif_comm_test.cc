// The comm:devices=N[,link=L] fix: an alpha-beta ring model over NCCL's latencies and nccl-tests'
// bus factors, each formula checked by hand; the fix on inline DDP-like steps, where it says why it
// cannot predict, and that communication hidden under compute changes the step less than exposed.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/whatif.h"
#include "stepdoctor/analysis/whatif_comm.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

TEST(WhatIfComm, RingStepsAndLatencyFollowNcclsModel) {
  EXPECT_EQ(RingSteps(CollectiveKind::kAllReduce, 8), 14);
  EXPECT_EQ(RingSteps(CollectiveKind::kAllGather, 8), 7);
  EXPECT_EQ(RingSteps(CollectiveKind::kPointToPoint, 8), 0);
  EXPECT_EQ(RingSteps(CollectiveKind::kAllReduce, 1), 0);
  // Simple over NVLink, one host: 8.4 + 14 x 3.4 us.
  EXPECT_NEAR(RingLatencyUs(CollectiveKind::kAllReduce, 8, 1, LinkHop::kNvlink, true), 8.4 + 14 * 3.4, 1e-9);
  // LL over PCIe: 3.6 + 14 x 1.0.
  EXPECT_NEAR(RingLatencyUs(CollectiveKind::kAllReduce, 8, 1, LinkHop::kPcie, false), 3.6 + 14, 1e-9);
  // 16 ranks on 2 hosts: 30 steps, 2 of them between the hosts at the network's 9.6 us.
  EXPECT_NEAR(RingLatencyUs(CollectiveKind::kAllReduce, 16, 2, LinkHop::kNvlink, true), 8.4 + 28 * 3.4 + 2 * 9.6, 1e-9);
}

TEST(WhatIfComm, ScaledTimeSplitsLatencyFromBandwidth) {
  // 1000 us measured over 2 ranks with 20 us of latency: 980 us of bandwidth part. Over 8 ranks
  // the bus factor goes 1 -> 1.75 and the latency is 60 us: 60 + 980 x 1.75.
  EXPECT_NEAR(ScaledCollectiveUs(CollectiveKind::kAllReduce, 1000, 2, 20, 8, 60, 1.0), 60 + 980 * 1.75, 1e-9);
  // The same ranks over a link of a tenth the peak: the bandwidth part x 10.
  EXPECT_NEAR(ScaledCollectiveUs(CollectiveKind::kAllReduce, 1000, 8, 50, 8, 50, 0.1), 50 + 950 * 10, 1e-9);
  // A call shorter than its modelled latency keeps a tenth of its time as bandwidth part.
  EXPECT_NEAR(ScaledCollectiveUs(CollectiveKind::kAllGather, 10, 2, 50, 4, 60, 1.0), 60 + 1.0 * 1.5, 1e-9);
  // No bus factor (point-to-point): unchanged.
  EXPECT_DOUBLE_EQ(ScaledCollectiveUs(CollectiveKind::kPointToPoint, 300, 2, 10, 8, 30, 1.0), 300);
}

TEST(WhatIfComm, ParsesDevicesAndANamedLink) {
  auto f = ParseFix("comm:devices=64,link=ib-ndr");
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->kind, FixKind::kComm);
  EXPECT_EQ(f->devices, 64);
  EXPECT_EQ(f->link, "ib-ndr");
  EXPECT_FALSE(ParseFix("comm").ok());
  EXPECT_FALSE(ParseFix("comm:devices=1").ok());
  EXPECT_FALSE(ParseFix("comm:devices=8,link=carrier-pigeon").ok());
  EXPECT_NE(ParseFix("comm:devices=8,link=x").message().find("nvlink4"), std::string::npos);
  EXPECT_FALSE(ParseFix("comm:ranks=8").ok());
}

// DDP-like steps on 8 A100 SXM4 GPUs: a 10 ms backward kernel, then a 4-rank all-reduce of
// `comm_ms` that either follows it (exposed) or runs beside it on another stream (hidden).
std::string DdpSteps(double comm_ms, bool hidden, int group = 4) {
  std::string devices = ",\"deviceProperties\":[";
  for (int i = 0; i < 8; ++i)
    devices += std::string(i ? "," : "") + "{\"id\":" + std::to_string(i) + ",\"name\":\"NVIDIA A100-SXM4-80GB\"}";
  devices += "]";
  std::string ev;
  int corr = 1;
  double t = 0;
  for (int i = 0; i < 5; ++i) {
    const double comm_start = hidden ? t + 500 : t + 10300;
    const double end = hidden ? t + 10600 + 200 : comm_start + comm_ms * 1000 + 200;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, end - t);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 10, testing::Corr(corr));
    ev += X("kernel", "ampere_sgemm_128x64_nn", 0, 7, t + 200, 10000,
            "{\"device\":0,\"stream\":7,\"correlation\":" + std::to_string(corr++) + "}");
    const std::string args = "{\"In msg nelems\":25000000,\"Out msg nelems\":25000000,\"dtype\":\"Float\","
                             "\"Collective name\":\"allreduce\",\"Group size\":" + std::to_string(group) + "}";
    ev += X("cpu_op", "record_param_comms", 1, 1, t + 150, 30, args);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 160, 10, testing::Corr(corr));
    ev += X("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 20, comm_start, comm_ms * 1000,
            "{\"device\":0,\"stream\":20,\"correlation\":" + std::to_string(corr++) + "}");
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 200, end - t - 210);
    t = end;
  }
  return Doc(ev, devices);
}

Prediction Predict(const std::string& json, const std::string& fix) {
  Trace t = testing::ImportChrome(json);
  auto f = ParseFix(fix);
  EXPECT_TRUE(f.ok()) << f.message();
  WhatIfReport r = TraceToWhatIf(t, {*f}, {});
  return r.predictions.empty() ? Prediction{} : r.predictions[0];
}

TEST(WhatIfComm, ExposedCommunicationGrowsWithTheRingAndShrinksOnAFasterLink) {
  const std::string exposed = DdpSteps(4, false);
  Prediction same = Predict(exposed, "comm:devices=4");
  ASSERT_TRUE(same.predicted) << same.why_not;
  EXPECT_NEAR(same.predicted_step_ms, same.baseline_step_ms, 0.05 * same.baseline_step_ms);  // nothing changes

  Prediction wider = Predict(exposed, "comm:devices=8");
  ASSERT_TRUE(wider.predicted) << wider.why_not;
  // 4 -> 8 ranks: the bandwidth part x (14/8)/(6/4) = 1.167, so about +0.67 ms of a ~14.5 ms step.
  EXPECT_GT(wider.predicted_step_ms, same.predicted_step_ms + 0.4);
  EXPECT_LT(wider.predicted_step_ms, same.predicted_step_ms + 1.2);
  EXPECT_LE(wider.low_ms, wider.predicted_step_ms);
  EXPECT_GE(wider.high_ms, wider.predicted_step_ms);
  bool named_assumption = false;
  for (const auto& a : wider.assumptions) named_assumption |= a.find("weak scaling to 8 devices") != std::string::npos;
  EXPECT_TRUE(named_assumption);

  // Over PCIe Gen4 instead of NVLink 3 (a tenth of the peak): the all-reduce takes about 10x.
  Prediction slow = Predict(exposed, "comm:devices=4,link=pcie4");
  ASSERT_TRUE(slow.predicted) << slow.why_not;
  EXPECT_GT(slow.predicted_step_ms, same.predicted_step_ms + 25);

  // Hidden under the backward kernel, the same all-reduce over 8 ranks costs the step nothing.
  Prediction hidden = Predict(DdpSteps(4, true), "comm:devices=8");
  ASSERT_TRUE(hidden.predicted) << hidden.why_not;
  EXPECT_NEAR(hidden.predicted_step_ms, hidden.baseline_step_ms, 0.06 * hidden.baseline_step_ms);
}

TEST(WhatIfComm, SaysWhyItCannotPredict) {
  // Past the host's 8 GPUs with no network named.
  Prediction p = Predict(DdpSteps(4, false), "comm:devices=16");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("name it (link="), std::string::npos) << p.why_not;
  // With the network named: predicted, and the steps between hosts are in the assumptions.
  Prediction net = Predict(DdpSteps(4, false), "comm:devices=16,link=ib-hdr");
  ASSERT_TRUE(net.predicted) << net.why_not;
  EXPECT_GT(net.predicted_step_ms, Predict(DdpSteps(4, false), "comm:devices=8").predicted_step_ms);
  // No communication at all.
  Prediction none = Predict(testing::DataLoaderLoop(4, 1, 20), "comm:devices=8");
  EXPECT_FALSE(none.predicted);
}

}  // namespace
}  // namespace stepdoctor
