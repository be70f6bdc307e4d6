// Achieved collective bandwidth (analysis/trace_to_collective_bandwidth) per kind and size bucket,
// from record_param_comms sizes or a kernel's own args, against the link named from the device
// (analysis/collective_links); the transfer part alone where the ranks were aligned.
#include <gtest/gtest.h>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/collective_links.h"
#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "../render/json_round_trip.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// `n` GPUs named `name` in Kineto's deviceProperties.
std::string Devices(const char* name, int n) {
  std::string s = ",\"deviceProperties\":[";
  for (int i = 0; i < n; ++i)
    s += std::string(i ? "," : "") + "{\"id\":" + std::to_string(i) + ",\"name\":\"" + name + "\"}";
  return s + "]";
}

// A record_param_comms range at `ts` (us) launching one kernel of `dur_us` on stream 7.
std::string Sized(double ts, int corr, const char* coll, int64_t in, int64_t out, const char* dtype, int group,
                  const char* kernel, double dur_us) {
  const std::string args = "{\"In msg nelems\":" + std::to_string(in) + ",\"Out msg nelems\":" + std::to_string(out) +
                           ",\"dtype\":\"" + dtype + "\",\"Collective name\":\"" + coll +
                           "\",\"Group size\":" + std::to_string(group) + "}";
  return X("cpu_op", "record_param_comms", 1, 1, ts, 50, args) +
         X("cuda_runtime", "cudaLaunchKernel", 1, 1, ts + 10, 5, testing::Corr(corr)) +
         X("kernel", kernel, 0, 7, ts + 20, dur_us, "{\"device\":0,\"correlation\":" + std::to_string(corr) + "}");
}

const CollectiveBandwidthRow* Row(const CollectiveBandwidthSummary& bw, const std::string& kind, int64_t min_bytes) {
  for (const auto& r : bw.rows)
    if (r.kind == kind && r.min_bytes == min_bytes) return &r;
  return nullptr;
}

constexpr int64_t kMiB = 1024 * 1024;

std::string FourKinds() {
  std::string ev;
  // all_reduce, 4 ranks: 1,000,000 floats (4e6 bytes: the 1-4 MiB bucket) in 1 ms; two of 16 MiB
  // (16-64 MiB) in 2 and 3 ms.
  ev += Sized(0, 1, "allreduce", 1000000, 1000000, "Float", 4, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000);
  ev += Sized(2000, 2, "allreduce", 4 * kMiB, 4 * kMiB, "Float", 4, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2000);
  ev += Sized(5000, 3, "allreduce", 4 * kMiB, 4 * kMiB, "Float", 4, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 3000);
  // all_gather: a rank's 1 MiB in, the group's 4 MiB out (S = 4 MiB, the 4-16 MiB bucket), 0.5 ms.
  ev += Sized(9000, 4, "_allgather_base", 256 * 1024, kMiB, "Float", 4, "ncclDevKernel_AllGather_RING_LL", 500);
  // broadcast of 53,120 floats (212,480 bytes: 64-256 KiB) in 30 us, sized on the kernel itself.
  ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10000, 5, testing::Corr(5)) +
        X("kernel", "ncclDevKernel_Broadcast_RING_LL", 0, 7, 10020, 30,
          "{\"device\":0,\"correlation\":5,\"Collective name\":\"broadcast\",\"In msg nelems\":53120,"
          "\"Out msg nelems\":53120,\"dtype\":\"Float\",\"Group size\":4}");
  // Left out: a wait (no payload), a send (point-to-point), a kernel without a size.
  ev += Sized(11000, 6, "wait", 0, 0, "Byte", 1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100);
  ev += Sized(12000, 7, "send", 1000, 1000, "Float", 4, "ncclDevKernel_SendRecv", 100);
  ev += X("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 7, 13000, 1000, "{\"device\":0,\"correlation\":99}");
  return ev;
}

TEST(CollectiveBandwidth, PerKindAndSizeBucketExactToTheFormula) {
  Trace t = testing::ImportChrome(Doc(FourKinds(), Devices("NVIDIA A100-SXM4-80GB", 8)));
  auto bw = TraceToCollectiveBandwidth(t, PrimaryWorker(t));
  ASSERT_TRUE(bw.has_value());
  ASSERT_EQ(bw->rows.size(), 4u);
  // all_reduce first (6 ms in all), its rows by size.
  EXPECT_EQ(bw->rows[0].kind, "all_reduce");
  EXPECT_EQ(bw->rows[1].kind, "all_reduce");

  const auto* small = Row(*bw, "all_reduce", kMiB);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->size_bucket, "1-4 MiB");
  EXPECT_EQ(small->below_bytes, 4 * kMiB);
  EXPECT_EQ(small->calls, 1);
  EXPECT_DOUBLE_EQ(small->bytes, 4e6);
  EXPECT_NEAR(small->mean_ms, 1.0, 1e-9);
  EXPECT_NEAR(small->algbw_gbps, 4.0, 1e-9);          // 4e6 B / 1 ms
  EXPECT_NEAR(*small->busbw_gbps, 4.0 * 2 * 3 / 4, 1e-9);  // x 2(n-1)/n
  EXPECT_TRUE(small->includes_waits);
  EXPECT_FALSE(small->transfer_busbw_gbps.has_value());

  const auto* large = Row(*bw, "all_reduce", 16 * kMiB);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(large->size_bucket, "16-64 MiB");
  EXPECT_EQ(large->calls, 2);
  EXPECT_NEAR(large->mean_ms, 2.5, 1e-9);
  const double large_algbw = 2 * 16.0 * kMiB / 5e-3 / 1e9;
  EXPECT_NEAR(large->algbw_gbps, large_algbw, 1e-9);
  EXPECT_NEAR(*large->busbw_gbps, large_algbw * 1.5, 1e-9);

  const auto* gather = Row(*bw, "all_gather", 4 * kMiB);
  ASSERT_NE(gather, nullptr);  // S is the output, the group's whole array
  EXPECT_DOUBLE_EQ(gather->bytes, 4.0 * kMiB);
  EXPECT_NEAR(gather->algbw_gbps, 4.0 * kMiB / 0.5e-3 / 1e9, 1e-9);
  EXPECT_NEAR(*gather->busbw_gbps, gather->algbw_gbps * 3 / 4, 1e-9);  // x (n-1)/n

  const auto* bcast = Row(*bw, "broadcast", 64 * 1024);
  ASSERT_NE(bcast, nullptr);
  EXPECT_EQ(bcast->size_bucket, "64-256 KiB");
  EXPECT_DOUBLE_EQ(bcast->bytes, 53120.0 * 4);
  EXPECT_NEAR(*bcast->busbw_gbps, bcast->algbw_gbps, 1e-12);  // x 1

  // The link: a 4-rank group within a host of 8 A100 SXM4s.
  ASSERT_EQ(bw->links.size(), 1u);
  EXPECT_EQ(bw->links[0].kind, "nvlink");
  EXPECT_EQ(bw->links[0].name, "NVLink 3 (A100 SXM4)");
  ASSERT_TRUE(bw->links[0].peak_gbps.has_value());
  EXPECT_DOUBLE_EQ(*bw->links[0].peak_gbps, kNvlink3A100Gbps);
  ASSERT_TRUE(small->busbw_of_peak_pct.has_value());
  EXPECT_NEAR(*small->busbw_of_peak_pct, 100.0 * 6.0 / kNvlink3A100Gbps, 1e-9);
}

TEST(CollectiveBandwidth, LinkNamedFromTheDevice) {
  struct Case {
    const char* device;
    const char* kind;
    double peak;
  } cases[] = {
      {"Tesla V100-SXM2-32GB", "nvlink", kNvlink2V100Gbps},    {"NVIDIA A100-SXM4-80GB", "nvlink", kNvlink3A100Gbps},
      {"NVIDIA H100 80GB HBM3", "nvlink", kNvlink4H100Gbps},   {"NVIDIA H200", "nvlink", kNvlink4H100Gbps},
      {"Tesla V100-PCIE-16GB", "pcie", kPcieGen3x16Gbps},      {"NVIDIA A100-PCIE-40GB", "pcie", kPcieGen4x16Gbps},
      {"NVIDIA A100 80GB PCIe", "pcie", kPcieGen4x16Gbps},     {"NVIDIA H100 PCIe", "pcie", kPcieGen5x16Gbps},
  };
  for (const auto& c : cases) {
    CollectiveLinkInfo l = GuessCollectiveLink(c.device, 8, 8);
    EXPECT_EQ(l.kind, c.kind) << c.device;
    ASSERT_TRUE(l.peak_gbps.has_value()) << c.device;
    EXPECT_DOUBLE_EQ(*l.peak_gbps, c.peak) << c.device;
    EXPECT_NE(l.basis.find(c.device), std::string::npos) << l.basis;
  }
  // One direction: half NVIDIA's both-ways totals; PCIe from its lane rate and 128b/130b.
  EXPECT_DOUBLE_EQ(kNvlink3A100Gbps, 300);
  EXPECT_NEAR(kPcieGen4x16Gbps, 31.51, 0.01);
  // A card an NVLink bridge can pair says so.
  EXPECT_NE(GuessCollectiveLink("NVIDIA A100-PCIE-40GB", 2, 8).basis.find("NVLink bridge"), std::string::npos);
}

TEST(CollectiveBandwidth, UnknownLinkSaidSo) {
  // A name that does not say SXM or PCIe: the candidates, no peak.
  CollectiveLinkInfo pg = GuessCollectiveLink("NVIDIA A100-PG509-200", 2, 8);
  EXPECT_EQ(pg.kind, "unknown");
  EXPECT_EQ(pg.name, "unknown link");
  EXPECT_FALSE(pg.peak_gbps.has_value());
  EXPECT_NE(pg.basis.find("NVLink 3"), std::string::npos) << pg.basis;
  EXPECT_NE(pg.basis.find("PCIe Gen4 x16"), std::string::npos) << pg.basis;
  // A device not in the table.
  CollectiveLinkInfo rtx = GuessCollectiveLink("NVIDIA GeForce RTX 2080 Ti", 2, 2);
  EXPECT_EQ(rtx.kind, "unknown");
  EXPECT_NE(rtx.basis.find("not in the link table"), std::string::npos) << rtx.basis;
  // More ranks than the host's GPUs: the network, whose speed the trace does not say.
  CollectiveLinkInfo net = GuessCollectiveLink("NVIDIA A100-SXM4-80GB", 16, 8);
  EXPECT_EQ(net.kind, "network");
  EXPECT_FALSE(net.peak_gbps.has_value());
  // One GPU listed: whether the ranks share a host cannot be told.
  EXPECT_EQ(GuessCollectiveLink("NVIDIA A100-SXM4-80GB", 2, 1).kind, "unknown");
  EXPECT_EQ(GuessCollectiveLink("NVIDIA A100-SXM4-80GB", 1, 8).kind, "none");
  EXPECT_EQ(GuessCollectiveLink("NVIDIA A100-SXM4-80GB", 0, 8).kind, "unknown");

  // Through a report: no device properties, so no comparison, and every renderer says so.
  Report r = AnalyzeTrace(testing::ImportChrome(Doc(FourKinds())));
  ASSERT_TRUE(r.collective_bandwidth.has_value());
  for (const auto& row : r.collective_bandwidth->rows) EXPECT_FALSE(row.busbw_of_peak_pct.has_value());
  EXPECT_EQ(r.collective_bandwidth->links.at(0).name, "unknown link");
  EXPECT_NE(RenderText(r, {}).find("unknown link"), std::string::npos);
  EXPECT_NE(RenderMarkdown(r, {}).find("unknown link"), std::string::npos);
  EXPECT_NE(RenderHtml(r, {}).find("collective-bandwidth"), std::string::npos);
  testing::ExpectJsonRoundTrip(r, "unknown link");
}

TEST(CollectiveBandwidth, CorpusNcclTrace) {
  // EXPECTED.md lists no bandwidth figures for this file (HTA's figures are the temporal
  // breakdown): the figures are held against the trace's own args.
  SD_CORPUS_OR_SKIP(path, "hta-testdata/nccl_parser_config/nccl_data.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  auto bw = TraceToCollectiveBandwidth(r->trace, PrimaryWorker(r->trace));
  ASSERT_TRUE(bw.has_value());
  double bytes = 0, ms = 0;
  int64_t calls = 0;
  for (const auto& row : bw->rows) {
    if (row.kind != "all_reduce") continue;
    EXPECT_EQ(row.group_size, 2);
    bytes += row.bytes;
    ms += row.kernel_ms;
    calls += row.calls;
    // Two ranks: all-reduce's bus factor 2(n-1)/n is 1.
    EXPECT_NEAR(*row.busbw_gbps, row.algbw_gbps, 1e-9);
  }
  EXPECT_EQ(calls, 15);
  EXPECT_DOUBLE_EQ(bytes, 306684384.0);  // sum of In msg nelems x 4 bytes (Float)
  EXPECT_NEAR(bytes / (ms / 1e3) / 1e9, 6.6, 0.2);
  // 8.2 and 9.7 MB calls in 4-16 MiB, the 26-32 MB ones in 16-64 MiB; the broadcasts' 212 KB and 424 B.
  ASSERT_NE(Row(*bw, "all_reduce", 4 * kMiB), nullptr);
  EXPECT_EQ(Row(*bw, "all_reduce", 4 * kMiB)->calls, 6);
  EXPECT_EQ(Row(*bw, "all_reduce", 16 * kMiB)->calls, 9);
  ASSERT_NE(Row(*bw, "broadcast", 64 * 1024), nullptr);
  EXPECT_EQ(Row(*bw, "broadcast", 64 * 1024)->calls, 3);
  EXPECT_EQ(Row(*bw, "broadcast", 0)->calls, 3);
  // "NVIDIA A100-PG509-200" does not say SXM4 or PCIe: the link is unknown, both candidates named.
  ASSERT_EQ(bw->links.size(), 1u);
  EXPECT_EQ(bw->links[0].name, "unknown link");
  EXPECT_NE(bw->links[0].basis.find("A100-PG509-200"), std::string::npos) << bw->links[0].basis;
  EXPECT_NE(bw->links[0].basis.find("2-rank group fits the 8 GPUs"), std::string::npos) << bw->links[0].basis;
}

TEST(CollectiveBandwidth, CorpusTracesWithoutSizes) {
  // Collectives whose args record no message size (MTIA's hccl, gloo's host ops): no table.
  SD_CORPUS_OR_SKIP(path, "wild/mtia_rank_0.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(TraceToCollectiveBandwidth(r->trace, PrimaryWorker(r->trace)).has_value());
}

}  // namespace
}  // namespace stepdoctor
