// Collectives matched across ranks by (process group, sequence number) where every rank's record
// them, by step order otherwise (analysis/trace_to_cross_rank); and the transfer-only bandwidth the
// alignment gives (analysis/trace_to_collective_bandwidth), in one analysis of the ranks and through
// their summaries.
#include <gtest/gtest.h>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/summary/summary_file.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"
#include "../render/json_round_trip.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

constexpr int64_t kMs = 1'000'000;
const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

// Per step, two all-reduces in process groups "0" and "1". On the true clock, A (group 0) runs
// 10-15 ms into the step, rank 1 arriving at 12; B (group 1) ends at 33, rank 0 arriving at 31.
// Rank 1 issues B first (at 8 ms, on another stream), so in start order its step holds B, A while
// rank 0's holds A, B.
RankCollectives TwoGroups(int rank, bool with_seq) {
  RankCollectives r;
  r.names = {kAllReduce};
  r.groups = {"0", "1"};
  for (int step = 0; step < 5; ++step) {
    const int64_t base = step * 100 * kMs;
    RankCollectives::Record a{step, 0, base + (rank == 0 ? 10 : 12) * kMs, base + 15 * kMs};
    RankCollectives::Record b{step, 0, base + (rank == 0 ? 31 : 8) * kMs, base + 33 * kMs};
    a.group = 0;
    b.group = 1;
    if (with_seq) a.seq = b.seq = step;
    if (rank == 0) {
      r.device.push_back(a);
      r.device.push_back(b);
    } else {
      r.device.push_back(b);
      r.device.push_back(a);
    }
  }
  r.device_total = int64_t(r.device.size());
  return r;
}

TEST(CrossRank, MatchedBySequenceWhereStepOrderDiffers) {
  RankCollectives r0 = TwoGroups(0, true), r1 = TwoGroups(1, true);
  CrossRank x = RankCollectivesToCrossRank({&r0, &r1});
  EXPECT_EQ(x.matched_by, "sequence");
  EXPECT_TRUE(x.aligned) << x.why_not;
  EXPECT_EQ(x.matched, 10);
  ASSERT_EQ(x.ranks.size(), 2u);
  EXPECT_NEAR(x.ranks[1].clock_skew_ms, 0, 1e-9);
  // Each is last at one of the two: rank 1 at A (2 ms behind), rank 0 at B (23 ms behind). Rank
  // 1's B is in flight from 8 ms, so A and B are one synchronisation: its cost, the largest
  // lateness, is rank 0's.
  EXPECT_NEAR(x.ranks[0].last_in_pct, 50, 1e-9);
  EXPECT_NEAR(x.ranks[1].last_in_pct, 50, 1e-9);
  EXPECT_NEAR(x.ranks[0].late_ms_per_step, 23, 1e-6);
  EXPECT_NEAR(x.ranks[1].late_ms_per_step, 0, 1e-6);
}

TEST(CrossRank, FallsBackToStepOrderWhereARankLacksSequenceNumbers) {
  RankCollectives r0 = TwoGroups(0, true), r1 = TwoGroups(1, false);
  CrossRank x = RankCollectivesToCrossRank({&r0, &r1});
  EXPECT_EQ(x.matched_by, "step order");
  // By place in the step rank 0's A meets rank 1's B: completions 18 ms apart either way, no offset.
  EXPECT_FALSE(x.aligned);
  EXPECT_NE(x.why_not.find("cannot be aligned"), std::string::npos) << x.why_not;
  // Ranks recording no sequence numbers at all: step order too.
  RankCollectives n0 = TwoGroups(0, false), n1 = TwoGroups(1, false);
  EXPECT_EQ(RankCollectivesToCrossRank({&n0, &n1}).matched_by, "step order");
}

TEST(CrossRank, SequenceLeavesOutWhatARankLacks) {
  RankCollectives r0 = TwoGroups(0, true), r1 = TwoGroups(1, true);
  r1.device.pop_back();  // rank 1's last A (step 4)
  CrossRank x = RankCollectivesToCrossRank({&r0, &r1});
  EXPECT_EQ(x.matched_by, "sequence");
  EXPECT_TRUE(x.aligned) << x.why_not;
  EXPECT_EQ(x.matched, 9);
  EXPECT_EQ(x.unmatched_steps, 1);
}

TEST(CrossRank, SequenceNumbersFromTheTrace) {
  // Kineto's args: on record_param_comms (joined to the kernel through its launch), or on the kernel.
  using testing::X;
  std::string ev = X("user_annotation", "ProfilerStep#1", 1, 1, 0, 10000);
  ev += X("cpu_op", "record_param_comms", 1, 1, 100, 50,
          "{\"Collective name\":\"allreduce\",\"Process Group Name\":\"0\",\"Seq\":41,\"In msg nelems\":8,"
          "\"Out msg nelems\":8,\"dtype\":\"Float\",\"Group size\":2}");
  ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 110, 5, testing::Corr(1));
  ev += X("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 7, 200, 100, "{\"device\":0,\"correlation\":1}");
  ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 400, 5, testing::Corr(2));
  ev += X("kernel", "ncclDevKernel_AllGather_RING_LL", 0, 7, 500, 100,
          "{\"device\":0,\"correlation\":2,\"Collective name\":\"_allgather_base\",\"Process Group Name\":\"0\","
          "\"Seq\":42}");
  Trace t = testing::ImportChrome(testing::Doc(ev));
  const WorkerId w = PrimaryWorker(t);
  StepWindows win = TraceToSteps(t, w);
  RankCollectives r = TraceToRankCollectives(t, {w, &win});
  ASSERT_EQ(r.device.size(), 2u);
  EXPECT_EQ(r.device[0].seq, 41);
  EXPECT_EQ(r.device[1].seq, 42);
  ASSERT_GE(r.device[0].group, 0);
  EXPECT_EQ(r.groups[size_t(r.device[0].group)], "0");
  EXPECT_EQ(r.device[0].group, r.device[1].group);
  EXPECT_EQ(r.device[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(r.device[1].kind, CollectiveKind::kAllGather);
  EXPECT_DOUBLE_EQ(r.device[0].bytes, 32);
  EXPECT_EQ(r.device[0].group_size, 2);
}

// A two-rank job on 8 A100 SXM4s a host: every 10 ms step, compute, then a 16 MiB all-reduce that
// rank 0 reaches at 2 ms and rank 1 at 4 ms, done at 5 ms (a 1 ms transfer), then compute again.
// Rank 0 records a few more host events, so its trace is the one the report describes.
void AddRank(Trace& t, int rank, bool seq) {
  Worker wk;
  wk.hostname = "node" + std::to_string(rank);
  wk.rank = rank;
  wk.world_size = 2;
  WorkerId w = t.AddWorker(wk);
  for (int g = 0; g < 8; ++g) t.GetOrAddDevice(w, DeviceKind::kGpu, g, "NVIDIA A100-SXM4-80GB");
  DeviceId gpu = t.GetOrAddDevice(w, DeviceKind::kGpu, 0);
  TimelineId host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
  TimelineId s = t.AddTimeline(w, gpu, TimelineKind::kDeviceStream, 7, "s7");
  TimelineId c = t.AddTimeline(w, gpu, TimelineKind::kDeviceStream, 9, "s9");
  auto arg = [&](Timeline& tl, uint32_t e, const char* key, int64_t i, const char* str = nullptr) {
    Arg a;
    a.key = t.strings.Intern(key);
    if (str) {
      a.type = ArgType::kString;
      a.s = t.strings.Intern(str);
    } else {
      a.type = ArgType::kInt;
      a.i = i;
    }
    tl.AddArg(e, a);
  };
  for (int i = 0; i < 5; ++i) {
    const int64_t base = i * 10 * kMs;
    const int64_t arrive = base + (rank == 0 ? 2 : 4) * kMs, done = base + 5 * kMs;
    t.timeline(host).Add(base, 10 * kMs, t.strings.Intern("ProfilerStep#" + std::to_string(i)), EventKind::kStepMarker);
    if (rank == 0) t.timeline(host).Add(base + kMs, kMs / 2, t.strings.Intern("aten::zero_"), EventKind::kFrameworkOp);
    t.timeline(s).Add(base, arrive - base, t.strings.Intern("gemm"), EventKind::kKernel);
    Timeline& cl = t.timeline(c);
    const uint32_t k = cl.Add(arrive, done - arrive, t.strings.Intern(kAllReduce), EventKind::kCollective);
    arg(cl, k, "Collective name", 0, "allreduce");
    arg(cl, k, "In msg nelems", 4 * 1024 * 1024);
    arg(cl, k, "Out msg nelems", 4 * 1024 * 1024);
    arg(cl, k, "dtype", 0, "Float");
    arg(cl, k, "Group size", 2);
    if (seq) {
      arg(cl, k, "Process Group Name", 0, "0");
      arg(cl, k, "Seq", i + 1);
    }
    t.timeline(s).Add(done + kMs / 2, kMs, t.strings.Intern("gemm"), EventKind::kKernel);
  }
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string Evidence(const Finding& f) {
  std::string all;
  for (const auto& e : f.evidence) all += e.label + ": " + e.value + "\n";
  return all;
}

// The job's figures: transfer part 16 MiB / 1 ms; rank 0's whole kernels 16 MiB / 3 ms.
void ExpectTransferOnly(const Report& r, const std::string& matched_by) {
  ASSERT_TRUE(r.alignment.has_value());
  EXPECT_TRUE(r.alignment->aligned) << r.alignment->why_not;
  EXPECT_EQ(r.alignment->matched_by, matched_by);
  ASSERT_TRUE(r.collective_bandwidth.has_value());
  ASSERT_EQ(r.collective_bandwidth->rows.size(), 1u);
  const auto& row = r.collective_bandwidth->rows[0];
  EXPECT_EQ(row.kind, "all_reduce");
  EXPECT_EQ(row.size_bucket, "16-64 MiB");
  EXPECT_NEAR(row.algbw_gbps, 16.0 * 1024 * 1024 / 3e-3 / 1e9, 1e-3);  // waits included
  EXPECT_FALSE(row.includes_waits);
  ASSERT_TRUE(row.transfer_busbw_gbps.has_value());
  EXPECT_EQ(row.transfer_calls, 5);
  EXPECT_NEAR(*row.transfer_mean_ms, 1.0, 1e-3);
  EXPECT_NEAR(*row.transfer_busbw_gbps, 16.0 * 1024 * 1024 / 1e-3 / 1e9, 1e-3);  // x 2(n-1)/n = 1
  EXPECT_NEAR(*row.busbw_of_peak_pct, 100.0 * *row.transfer_busbw_gbps / 300, 1e-2);
  EXPECT_EQ(r.collective_bandwidth->links.at(0).name, "NVLink 3 (A100 SXM4)");
  // collective_bound quotes the transfer figure and does not blame waits it has taken out.
  const Finding* f = Find(r, "collective_bound");
  ASSERT_NE(f, nullptr);
  const std::string ev = Evidence(*f);
  EXPECT_NE(ev.find("over the transfer part"), std::string::npos) << ev;
  EXPECT_NE(ev.find("far less than it can"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("include the rank's waits"), std::string::npos) << ev;
}

TEST(CollectiveBandwidth, TransferOnlyWhereRanksAligned) {
  for (bool seq : {true, false}) {
    Trace t;
    AddRank(t, 0, seq);
    AddRank(t, 1, seq);
    t.Finalize();
    ExpectTransferOnly(AnalyzeTrace(t), seq ? "sequence" : "step order");
  }
}

TEST(CollectiveBandwidth, TransferOnlyThroughRankSummaries) {
  std::vector<Trace> parts(2);
  AddRank(parts[0], 0, true);
  AddRank(parts[1], 1, true);
  // Each rank alone: the whole kernel, waits included, and the finding says so.
  parts[0].Finalize();
  auto alone = TraceToRankSummary(parts[0], "rank0");
  ASSERT_TRUE(alone.ok()) << alone.message();
  ASSERT_TRUE(alone->report.collective_bandwidth.has_value());
  EXPECT_TRUE(alone->report.collective_bandwidth->rows.at(0).includes_waits);
  const Finding* f = Find(alone->report, "collective_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(Evidence(*f).find("include the rank's waits"), std::string::npos) << Evidence(*f);
  // The sequence numbers and sizes travel in the summary.
  auto back = SummaryFromJson(SummaryToJson(*alone), "rank0.sdsum");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->collectives.device.size(), alone->collectives.device.size());
  EXPECT_EQ(back->collectives.device[0].seq, 1);
  EXPECT_DOUBLE_EQ(back->collectives.device[0].bytes, 16.0 * 1024 * 1024);
  EXPECT_EQ(back->collectives.groups, std::vector<std::string>{"0"});
  EXPECT_EQ(SummaryToJson(*back), SummaryToJson(*alone));

  auto r = RankTracesToReport(std::move(parts), {"rank0", "rank1"});
  ASSERT_TRUE(r.ok()) << r.message();
  ExpectTransferOnly(*r, "sequence");
  testing::ExpectJsonRoundTrip(*r, "job with transfer figures");
}

TEST(Summary, Version1WithoutCallInfoStillReads) {
  // A summary written before the call info (no `groups`, no `device_calls`): kinds from the names.
  Trace t;
  AddRank(t, 0, true);
  t.Finalize();
  auto s = TraceToRankSummary(t, "rank0");
  ASSERT_TRUE(s.ok());
  std::string json = SummaryToJson(*s);
  const size_t groups = json.find(",\"groups\":");
  const size_t end = json.find("]", json.find("\"device_calls\":"));
  ASSERT_NE(groups, std::string::npos);
  json.erase(groups, end + 1 - groups);
  auto back = SummaryFromJson(json, "old.sdsum");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_FALSE(back->collectives.device.empty());
  EXPECT_EQ(back->collectives.device[0].seq, -1);
  EXPECT_EQ(back->collectives.device[0].kind, CollectiveKind::kAllReduce);
  EXPECT_TRUE(back->collectives.groups.empty());
}

}  // namespace
}  // namespace stepdoctor
