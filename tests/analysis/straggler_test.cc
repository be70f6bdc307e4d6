// The ranks of a job compared at their collectives (analysis/trace_to_cross_rank) and the
// `straggler` rule, on ranks built in the test: each rank's clock off by a known amount, one rank
// arriving late by a known amount, both sides of each threshold, and the cases where the ranks
// cannot be compared.
#include <gtest/gtest.h>

#include <cmath>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"

namespace stepdoctor {
namespace {

constexpr int64_t kMs = 1'000'000;

struct RankSpec {
  int64_t skew_ns = 0;         // added to every time of the rank: its clock's offset
  double before_ms = 40;       // compute before the step's collective (its arrival)
  double after_ms = 10;        // compute after the collective
};

struct JobSpec {
  std::vector<RankSpec> ranks;
  int steps = 5;
  double step_ms = 100;
  double transfer_ms = 5;
  bool second_bucket = false;  // a second collective, 2 ms after the first, overlapping it (DDP buckets)
  bool with_rank_numbers = true;
};

// Every step: compute `before`, the collective until the last rank has arrived plus the transfer,
// then `after`. A collective ends at the same instant on every rank (on the true clock).
Trace Job(const JobSpec& spec) {
  Trace t;
  double last_ms = 0;
  for (const auto& r : spec.ranks) last_ms = std::max(last_ms, r.before_ms);
  for (size_t rank = 0; rank < spec.ranks.size(); ++rank) {
    const RankSpec& r = spec.ranks[rank];
    Worker wk;
    wk.hostname = "node" + std::to_string(rank);
    if (spec.with_rank_numbers) {
      wk.rank = int(rank);
      wk.world_size = int(spec.ranks.size());
    }
    WorkerId w = t.AddWorker(wk);
    TimelineId host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
    TimelineId s = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s7");
    TimelineId c = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 9, "s9");
    for (int i = 0; i < spec.steps; ++i) {
      const int64_t base = int64_t(i * spec.step_ms * kMs) + r.skew_ns;
      const int64_t arrive = base + int64_t(r.before_ms * kMs);
      const int64_t done = base + int64_t((last_ms + spec.transfer_ms) * kMs);
      t.timeline(host).Add(base, int64_t(spec.step_ms * kMs), t.strings.Intern("ProfilerStep#" + std::to_string(i)),
                           EventKind::kStepMarker);
      t.timeline(s).Add(base, arrive - base, t.strings.Intern("gemm"), EventKind::kKernel);
      t.timeline(c).Add(arrive, done - arrive, t.strings.Intern("ncclKernel_AllReduce_RING_LL_Sum_float(x)"),
                        EventKind::kCollective);
      if (spec.second_bucket)
        t.timeline(c).Add(arrive + 2 * kMs, done + 2 * kMs - (arrive + 2 * kMs),
                          t.strings.Intern("ncclKernel_AllReduce_RING_LL_Sum_float(y)"), EventKind::kCollective);
      t.timeline(s).Add(done + 3 * kMs, int64_t(r.after_ms * kMs), t.strings.Intern("gemm"), EventKind::kKernel);
    }
  }
  t.Finalize();
  return t;
}

JobSpec Ranks(int n) {
  JobSpec j;
  j.ranks.resize(n);
  return j;
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

double Figure(const Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.figures)
    if (k == key) return v;
  ADD_FAILURE() << "no figure " << key;
  return NAN;
}

TEST(Straggler, LateRankAndClockOffsetsRecovered) {
  JobSpec j = Ranks(4);
  j.ranks[1].skew_ns = 37 * kMs;     // rank 1's clock 37 ms ahead
  j.ranks[2].skew_ns = -250 * kMs;   // rank 2's 250 ms behind
  j.ranks[3].skew_ns = 3 * kMs;
  j.ranks[2].before_ms = 52;         // rank 2 arrives 12 ms after the others every step
  Report r = AnalyzeTrace(Job(j));
  ASSERT_TRUE(r.alignment.has_value());
  EXPECT_TRUE(r.alignment->aligned) << r.alignment->why_not;
  EXPECT_EQ(r.alignment->matched, 5);
  EXPECT_EQ(r.alignment->collectives_on, "device");
  ASSERT_EQ(r.workers.size(), 4u);
  EXPECT_NEAR(*r.workers[1].clock_skew_ms, 37, 1e-6);
  EXPECT_NEAR(*r.workers[2].clock_skew_ms, -250, 1e-6);
  EXPECT_NEAR(*r.workers[2].late_ms, 12, 1e-6);
  EXPECT_NEAR(*r.workers[2].last_in_pct, 100, 1e-9);
  EXPECT_NEAR(*r.workers[0].wait_ms, 12, 1e-6);
  EXPECT_NEAR(*r.workers[2].wait_ms, 0, 1e-6);
  const Finding* f = Find(r, "straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);  // 12% of a 100 ms step
  EXPECT_NE(f->title.find("node2 (rank 2)"), std::string::npos) << f->title;
  EXPECT_EQ(Figure(*f, "rank"), 2);
  EXPECT_NEAR(Figure(*f, "late_ms_per_step"), 12, 1e-6);
  EXPECT_NEAR(Figure(*f, "last_in_pct"), 100, 1e-9);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kCommunication);
  ASSERT_FALSE(r.alignment->collectives.empty());
  EXPECT_EQ(r.alignment->collectives[0].name, "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_NEAR(r.alignment->collectives[0].mean_transfer_ms, 5, 1e-6);
  EXPECT_NEAR(r.alignment->collectives[0].mean_wait_ms, 12, 1e-6);
}

// The busiest rank computes more after the collective: it is on time, and another rank, less
// busy, holds everyone. The straggler is the one the others wait for.
TEST(Straggler, NotTheBusiestRank) {
  JobSpec j = Ranks(3);
  j.ranks[0].after_ms = 40;   // busiest: 40 + 40 ms of compute, but arrives on time
  j.ranks[1].before_ms = 60;  // 60 + 10 ms of compute, arrives 20 ms late
  Report r = AnalyzeTrace(Job(j));
  ASSERT_GT(r.workers[0].compute_ms, r.workers[1].compute_ms);
  const Finding* f = Find(r, "straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("node1"), std::string::npos) << f->title;
  EXPECT_NEAR(Figure(*f, "late_ms_per_step"), 20, 1e-6);
  EXPECT_EQ(Find(r, "rank_imbalance"), nullptr);
}

// Two collectives in flight together wait for the same late arrival: counted once.
TEST(Straggler, OverlappingCollectivesCountedOnce) {
  JobSpec j = Ranks(2);
  j.second_bucket = true;
  j.ranks[1].before_ms = 50;
  Report r = AnalyzeTrace(Job(j));
  ASSERT_TRUE(r.alignment && r.alignment->aligned);
  EXPECT_EQ(r.alignment->matched, 10);
  EXPECT_NEAR(*r.workers[1].late_ms, 10, 1e-6);
  EXPECT_NEAR(*r.workers[0].wait_ms, 10, 1e-6);
}

TEST(Straggler, Thresholds) {
  // Rank 1's lateness, in ms of a 100 ms step, is its share in percent.
  auto late = [](double ms) {
    JobSpec j = Ranks(2);
    j.ranks[1].before_ms = 40 + ms;
    return AnalyzeTrace(Job(j));
  };
  EXPECT_EQ(Find(late(kStragglerMinPct - 0.1), "straggler"), nullptr);
  const Finding* m = Find(late(kStragglerMinPct + 0.1), "straggler");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, FindingSeverity::kModerate);
  Report below_high = late(kStragglerHighPct - 0.1);
  ASSERT_NE(Find(below_high, "straggler"), nullptr);
  EXPECT_EQ(Find(below_high, "straggler")->severity, FindingSeverity::kModerate);
  Report high = late(kStragglerHighPct + 0.1);
  ASSERT_NE(Find(high, "straggler"), nullptr);
  EXPECT_EQ(Find(high, "straggler")->severity, FindingSeverity::kHigh);

}

// A rank late now and then is still the one the others wait for: rank 1 is 30 ms late in 2 of
// 5 steps (12 ms a step), rank 0 1 ms late in the other 3. The finding says how often.
TEST(Straggler, NowAndThen) {
  Trace alt;
  for (int rank = 0; rank < 2; ++rank) {
    Worker wk;
    wk.hostname = "node" + std::to_string(rank);
    wk.rank = rank;
    wk.world_size = 2;
    WorkerId w = alt.AddWorker(wk);
    TimelineId host = alt.AddTimeline(w, alt.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "m");
    TimelineId s = alt.AddTimeline(w, alt.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s");
    for (int i = 0; i < 5; ++i) {
      const int64_t base = i * 100 * kMs;
      const bool one_late = i < 2;
      const double before = rank == 1 ? (one_late ? 70 : 40) : (one_late ? 40 : 41);
      const double last = one_late ? 70 : 41;
      alt.timeline(host).Add(base, 100 * kMs, alt.strings.Intern("ProfilerStep#" + std::to_string(i)), EventKind::kStepMarker);
      alt.timeline(s).Add(base, int64_t(before * kMs), alt.strings.Intern("gemm"), EventKind::kKernel);
      alt.timeline(s).Add(base + int64_t(before * kMs), int64_t((last + 5 - before) * kMs), alt.strings.Intern("ncclKernel"),
                          EventKind::kCollective);
    }
  }
  alt.Finalize();
  Report r = AnalyzeTrace(alt);
  ASSERT_TRUE(r.alignment && r.alignment->aligned) << (r.alignment ? r.alignment->why_not : "");
  EXPECT_NEAR(*r.workers[1].last_in_pct, 40, 1e-9);
  EXPECT_NEAR(*r.workers[1].late_ms, 12, 1e-6);
  EXPECT_NEAR(*r.workers[0].late_ms, 0.6, 1e-6);
  const Finding* f = Find(r, "straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("node1 (rank 1) arrives last at 40%"), std::string::npos) << f->title;
}

TEST(CrossRank, RefusedWhenClocksCannotBeAligned) {
  // Rank 1's collectives drift by 30 ms a step: no single offset puts its completions on rank 0's.
  JobSpec j = Ranks(2);
  Trace t = Job(j);
  for (auto& tl : t.timelines)
    if (tl.worker.v == 1)
      for (size_t i = 0; i < tl.ev.size(); ++i) tl.ev.start_ns[i] += (tl.ev.start_ns[i] / (100 * kMs)) * 30 * kMs;
  t.Finalize();
  Report r = AnalyzeTrace(t);
  ASSERT_TRUE(r.alignment.has_value());
  EXPECT_FALSE(r.alignment->aligned);
  EXPECT_NE(r.alignment->why_not.find("cannot be aligned"), std::string::npos) << r.alignment->why_not;
  EXPECT_EQ(Find(r, "straggler"), nullptr);
  EXPECT_FALSE(r.workers[0].late_ms.has_value());
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("ranks not compared at their collectives") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CrossRank, StepsWithDifferentCollectivesLeftOut) {
  JobSpec j = Ranks(2);
  j.second_bucket = true;
  // Drop rank 1's second collective in its first two steps.
  Trace cut = Job(j);
  for (auto& tl : cut.timelines) {
    if (tl.worker.v != 1 || tl.kind != TimelineKind::kDeviceStream || tl.tid != 9) continue;
    EventColumns kept;
    for (size_t i = 0; i < tl.ev.size(); ++i) {
      const bool second = cut.str(tl.ev.name[i]).find("(y)") != std::string_view::npos;
      if (second && tl.ev.start_ns[i] < 200 * kMs) continue;
      kept.start_ns.push_back(tl.ev.start_ns[i]);
      kept.dur_ns.push_back(tl.ev.dur_ns[i]);
      kept.name.push_back(tl.ev.name[i]);
      kept.kind.push_back(tl.ev.kind[i]);
      kept.corr.push_back(tl.ev.corr[i]);
      kept.args_at.push_back(EventColumns::kNoArgs);
      kept.args_n.push_back(0);
    }
    tl.ev = std::move(kept);
  }
  CrossRank x;
  {
    std::vector<StepWindows> w = {TraceToSteps(cut, WorkerId{0}), TraceToSteps(cut, WorkerId{1})};
    x = TraceToCrossRank(cut, {{WorkerId{0}, &w[0]}, {WorkerId{1}, &w[1]}});
  }
  EXPECT_TRUE(x.aligned) << x.why_not;
  EXPECT_EQ(x.unmatched_steps, 2);
  EXPECT_EQ(x.steps, 3);
  EXPECT_EQ(x.matched, 6);
}

// Host-side collectives: gloo's work ranges are matched; c10d's dispatch op, which only enqueues
// the work, is not.
TEST(CrossRank, HostCollectivesSkipEnqueueOps) {
  Trace t;
  for (int rank = 0; rank < 2; ++rank) {
    Worker wk;
    wk.hostname = "cpu" + std::to_string(rank);
    WorkerId w = t.AddWorker(wk);
    wk.source_path = "job/rank" + std::to_string(rank) + ".json";
    t.workers[w.v].source_path = wk.source_path;
    DeviceId cpu = t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0);
    TimelineId main = t.AddTimeline(w, cpu, TimelineKind::kHostThread, 1, "main");
    TimelineId gloo = t.AddTimeline(w, cpu, TimelineKind::kHostThread, 2, "gloo");
    for (int i = 0; i < 4; ++i) {
      const int64_t base = i * 100 * kMs + rank * 150 * kMs;  // rank 1's clock 150 ms ahead
      const int64_t arrive = base + (rank == 1 ? 70 : 40) * kMs;
      t.timeline(main).Add(base, 100 * kMs, t.strings.Intern("ProfilerStep#" + std::to_string(i)), EventKind::kStepMarker);
      t.timeline(main).Add(base + 1 * kMs, (rank == 1 ? 69 : 39) * kMs, t.strings.Intern("aten::mm"), EventKind::kFrameworkOp);
      t.timeline(main).Add(arrive, 50'000, t.strings.Intern("c10d::allreduce_"), EventKind::kCollective);
      t.timeline(gloo).Add(arrive + 60'000, base + 75 * kMs - arrive - 60'000, t.strings.Intern("gloo:all_reduce"),
                           EventKind::kCollective);
    }
  }
  t.Finalize();
  Report r = AnalyzeTrace(t);
  ASSERT_TRUE(r.alignment.has_value());
  ASSERT_TRUE(r.alignment->aligned) << r.alignment->why_not;
  EXPECT_EQ(r.alignment->collectives_on, "host");
  EXPECT_EQ(r.alignment->matched, 4);
  EXPECT_NEAR(*r.workers[1].clock_skew_ms, 150, 1e-6);
  EXPECT_NEAR(*r.workers[1].late_ms, 30, 1e-6);
  const Finding* f = Find(r, "straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("cpu1"), std::string::npos) << f->title;
}

}  // namespace
}  // namespace stepdoctor
