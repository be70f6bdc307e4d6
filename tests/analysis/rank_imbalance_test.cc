// rank_imbalance on two ranks built in the test, both sides of its threshold, through the
// whole pipeline (AnalyzeTrace computes every worker's figures).
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor {
namespace {

constexpr int64_t kMs = 1'000'000;

// Two ranks, 4 steps of 100 ms each; rank 1's kernel takes `slow_ms`, rank 0's 50 ms. The
// collective is recorded on the host only as ProcessGroupNCCL's enqueue range (nccl:all_reduce),
// which says nothing of when the transfer ran: the ranks cannot be compared at their
// collectives, so rank_imbalance judges them by their busy time (straggler_test.cc has the case
// where they can).
Trace TwoRanks(double slow_ms, int ranks = 2, int world_size = 2) {
  Trace t;
  for (int rank = 0; rank < ranks; ++rank) {
    Worker wk;
    wk.hostname = "node" + std::to_string(rank);
    wk.rank = rank;
    wk.world_size = world_size;
    WorkerId w = t.AddWorker(wk);
    TimelineId host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
    TimelineId s = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s7");
    for (int i = 0; i < 4; ++i) {
      int64_t base = i * 100 * kMs;
      t.timeline(host).Add(base, 100 * kMs, t.strings.Intern("ProfilerStep#" + std::to_string(i)), EventKind::kStepMarker);
      const int64_t k_ns = int64_t((rank == 1 ? slow_ms : 50) * kMs);
      t.timeline(s).Add(base, k_ns, t.strings.Intern("gemm"), EventKind::kKernel);
      t.timeline(host).Add(base + 1000, 20'000, t.strings.Intern("nccl:all_reduce"), EventKind::kCollective);
    }
  }
  t.Finalize();
  return t;
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(RankImbalance, SlowRankIsNamed) {
  Report r = AnalyzeTrace(TwoRanks(80));  // 30 ms more per 100 ms step
  const Finding* f = Find(r, "rank_imbalance");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_NEAR(f->share_pct, 30.0, 1e-6);
  EXPECT_NE(f->title.find("node1 (rank 1)"), std::string::npos) << f->title;
  EXPECT_EQ(f->evidence.size(), 2u);
  ASSERT_EQ(r.workers.size(), 2u);  // the ranks table every renderer prints
  EXPECT_NEAR(r.workers[1].compute_ms - r.workers[0].compute_ms, 30.0, 1e-6);
}

// Two ranks traced of a job of 128 (HTA's sampled rank traces): the slower of the two need not
// be the job's slowest, so the finding says so and is one level lower; all ranks traced: as before.
TEST(RankImbalance, TracedRanksOfALargerJobAreASampleBothSides) {
  for (int world : {2, 128}) {
    Report r = AnalyzeTrace(TwoRanks(80, 2, world));
    const Finding* f = Find(r, "rank_imbalance");
    ASSERT_NE(f, nullptr) << world;
    const bool sample = world > 2;
    EXPECT_EQ(f->severity, sample ? FindingSeverity::kModerate : FindingSeverity::kHigh) << world;
    EXPECT_EQ(f->title.find("of the 2 ranks traced out of 128") != std::string::npos, sample) << f->title;
    EXPECT_EQ(f->title.find("the other ranks wait for it") != std::string::npos, !sample) << f->title;
    EXPECT_EQ(f->evidence.size(), sample ? 3u : 2u);
    EXPECT_NEAR(f->share_pct, 30.0, 1e-6);  // the figure between the traced ranks stands
  }
}

TEST(RankImbalance, Thresholds) {
  // Rank 1's extra kernel time, in ms of a 100 ms step, is its share in percent.
  EXPECT_EQ(Find(AnalyzeTrace(TwoRanks(50 + kImbalanceMinPct - 0.1)), "rank_imbalance"), nullptr);
  Report r = AnalyzeTrace(TwoRanks(50 + kImbalanceMinPct + 0.1));
  const Finding* m = Find(r, "rank_imbalance");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, FindingSeverity::kModerate);
  Report below_high = AnalyzeTrace(TwoRanks(50 + kImbalanceHighPct - 0.1));
  ASSERT_NE(Find(below_high, "rank_imbalance"), nullptr);
  EXPECT_EQ(Find(below_high, "rank_imbalance")->severity, FindingSeverity::kModerate);
  Report high = AnalyzeTrace(TwoRanks(50 + kImbalanceHighPct + 0.1));
  ASSERT_NE(Find(high, "rank_imbalance"), nullptr);
  EXPECT_EQ(Find(high, "rank_imbalance")->severity, FindingSeverity::kHigh);
}

// Runs of a sweep recorded one after another (rank-like names, clocks that each start at zero,
// no world size, no collectives) are not ranks of one job: no ranks table, no rank_imbalance.
TEST(RankImbalance, RunsOfASweepAreNotRanks) {
  Trace t;
  for (int run = 0; run < 2; ++run) {
    Worker wk;
    wk.hostname = "cost" + std::to_string(run + 1) + "_workers0";
    wk.source_path = "sweep/cost" + std::to_string(run + 1) + "_workers0.pt.trace.json";
    WorkerId w = t.AddWorker(wk);
    TimelineId host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
    for (int i = 0; i < 4; ++i) {
      const int64_t base = i * 100 * kMs;
      t.timeline(host).Add(base, 100 * kMs, t.strings.Intern("ProfilerStep#" + std::to_string(i)), EventKind::kStepMarker);
      t.timeline(host).Add(base, (run == 0 ? 40 : 90) * kMs, t.strings.Intern("aten::mm"), EventKind::kFrameworkOp);
    }
  }
  t.Finalize();
  Report r = AnalyzeTrace(t);
  EXPECT_TRUE(r.workers.empty());
  EXPECT_EQ(Find(r, "rank_imbalance"), nullptr);
  // The same two files as ranks that state their world size are one job.
  t.workers[0].world_size = t.workers[1].world_size = 2;
  Report job = AnalyzeTrace(t);
  EXPECT_EQ(job.workers.size(), 2u);
  EXPECT_NE(Find(job, "rank_imbalance"), nullptr);
}

TEST(RankImbalance, OneRankSaysNothing) {
  EXPECT_EQ(Find(AnalyzeTrace(TwoRanks(80, /*ranks=*/1)), "rank_imbalance"), nullptr);
}

}  // namespace
}  // namespace stepdoctor

namespace stepdoctor {
namespace {

// A real two-rank DDP recording (examples/ddp): rank 1 does extra work each step and rank 0
// waits for it in gloo:all_reduce. The gloo ops show who waits for whom, so `straggler` names
// rank 1 and rank_imbalance stays silent.
TEST(RankImbalance, RecordedDdpStraggler) {
  auto imported = ImportPaths({std::string(STEPDOCTOR_SOURCE_DIR) + "/examples/ddp"});
  ASSERT_TRUE(imported.ok()) << imported.message();
  Report r = AnalyzeTrace(imported->trace);
  EXPECT_EQ(Find(r, "rank_imbalance"), nullptr);
  const Finding* f = Find(r, "straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_EQ(f->title.rfind("ddp_rank1 ", 0), 0u) << f->title;
  ASSERT_EQ(r.workers.size(), 2u);
  const WorkerRow& r0 = r.workers[0].name == "ddp_rank0" ? r.workers[0] : r.workers[1];
  // Rank 0's wait shows as communication, not as host overhead (CPU-only: host collectives).
  EXPECT_GT(r0.collectives_ms, 10 * r0.host_ms);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kCommunication);
  // What the others lose to rank 1 per step, from the aligned arrivals, is rank 0's exposed
  // communication, measured apart from them in its step breakdown.
  const WorkerRow& r1 = r.workers[0].name == "ddp_rank1" ? r.workers[0] : r.workers[1];
  ASSERT_TRUE(r1.late_ms.has_value());
  EXPECT_NEAR(*r1.late_ms, r0.collectives_ms, 0.05 * r0.collectives_ms);
  EXPECT_NEAR(*r1.last_in_pct, 100.0, 1e-9);
}

}  // namespace
}  // namespace stepdoctor
