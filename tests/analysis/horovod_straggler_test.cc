// A Horovod timeline's rank-ready markers name the rank the others wait for (analysis/
// horovod_negotiation): the last marker of each NEGOTIATE_* phase, late by the time after the
// next-latest one; tensors negotiated side by side count that time once. Only broadcasts
// negotiated: the start-up broadcast, paid once.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/horovod_negotiation.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// `tensors` tensors negotiated side by side, each cycle: ranks 0..3 report ready, `late_rank`
// `late_ms` after the others (a tie where late_ms is 0), then a 20 ms MPI phase. `cycles` cycles
// 100 ms apart. `ranks` ranks report (one: a single-process run).
std::string Timeline(const char* phase, int tensors, int cycles, int late_rank, double late_ms, int ranks = 4) {
  const std::string op = std::string(phase).substr(10);  // ALLREDUCE, BROADCAST
  std::string s = "[\n";
  for (int k = 0; k < tensors; ++k)
    s += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(k + 1) +
         ", \"args\": {\"name\": \"Horovod" + op + "_grad_" + std::to_string(k) + "\"}},\n";
  for (int c = 0; c < cycles; ++c) {
    const double t0 = c * 100000.0;
    for (int k = 0; k < tensors; ++k) {
      const std::string pid = std::to_string(k + 1);
      const double start = t0 + k * 10;
      const double ready = start + 1000 + late_ms * 1000;
      s += "{\"ph\": \"B\", \"name\": \"" + std::string(phase) + "\", \"ts\": " + std::to_string(start) + ", \"pid\": " + pid + "},\n";
      for (int r = 0; r < ranks; ++r) {
        const double at = r == late_rank ? ready : start + 1000;
        s += "{\"ph\": \"X\", \"name\": \"" + std::to_string(r) + "\", \"ts\": " + std::to_string(at + r) +
             ", \"pid\": " + pid + ", \"dur\": 0},\n";
      }
      s += "{\"ph\": \"E\", \"ts\": " + std::to_string(ready + 10) + ", \"pid\": " + pid + "},\n";
      s += "{\"ph\": \"B\", \"name\": \"MPI_" + op + "\", \"ts\": " + std::to_string(ready + 10) + ", \"pid\": " + pid + "},\n";
      s += "{\"ph\": \"E\", \"ts\": " + std::to_string(ready + 20010) + ", \"pid\": " + pid + "},\n";
    }
  }
  return s;
}

Trace Import(const std::string& text) {
  Trace t;
  EXPECT_TRUE(testing::ImportText(text, "horovod_timeline.json", &t).ok());
  return t;
}

TEST(HorovodStraggler, TheLastRankToReportReadyIsNamedAndItsLatenessCountedOnce) {
  Trace t = Import(Timeline("NEGOTIATE_ALLREDUCE", 3, 4, 2, 30));
  HorovodLateRanks h = TraceToHorovodLateRanks(t, PrimaryWorker(t));
  EXPECT_EQ(h.negotiations, 12);
  EXPECT_EQ(h.ranks, 4);
  ASSERT_FALSE(h.by_rank.empty());
  EXPECT_EQ(h.by_rank[0].rank, 2);
  EXPECT_EQ(h.by_rank[0].last_in, 12);
  // Three tensors late together per cycle: about 30 ms a cycle (plus the 20 us stagger), not 90.
  EXPECT_NEAR(h.by_rank[0].late_ms, 4 * 30.02, 0.1);

  Report r = AnalyzeTrace(t);
  const Finding* f = testing::FindFinding(r, "straggler");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->title.find("rank 2 is ready last in 100%"), std::string::npos) << f->title;
  bool rank_figure = false;
  for (const auto& fig : f->figures) rank_figure |= fig.first == "rank" && fig.second == 2;
  EXPECT_TRUE(rank_figure);
}

// A negotiation whose end event is missing (a timeline cut while it ran, or a writer that
// dropped it) runs to the end of the trace: its markers are still only the ones that follow it
// before the lane's next phase, not every later cycle's (which also made each such negotiation
// scan and sort the rest of the lane).
TEST(HorovodStraggler, AnOpenNegotiationTakesOnlyItsOwnMarkers) {
  std::string text = Timeline("NEGOTIATE_ALLREDUCE", 1, 6, 2, 30);
  // Drop the first cycle's end of negotiation: the first "E" after the first "B".
  const size_t b = text.find("\"ph\": \"B\"");
  const size_t e = text.find("{\"ph\": \"E\"", b);
  ASSERT_NE(e, std::string::npos);
  text.erase(e, text.find('\n', e) - e + 1);
  Trace t = Import(text);
  HorovodLateRanks h = TraceToHorovodLateRanks(t, PrimaryWorker(t));
  // Each negotiation holds 4 markers, the open one included; ranks 0..3, rank 2 last in each.
  EXPECT_EQ(h.ranks, 4);
  ASSERT_FALSE(h.by_rank.empty());
  EXPECT_EQ(h.by_rank[0].rank, 2);
  EXPECT_EQ(h.by_rank[0].last_in, h.negotiations);
  EXPECT_NEAR(h.by_rank[0].late_ms, h.negotiations * 30.0, 0.5);
  // The open one's wait is its own markers' spread (about 30 ms), not five cycles long.
  EXPECT_NEAR(h.wait_ms, h.negotiations * 30.0, 0.5);
}

TEST(HorovodStraggler, ReadyTogetherNamesNoOne) {
  Trace t = Import(Timeline("NEGOTIATE_ALLREDUCE", 2, 4, 1, 0));
  HorovodLateRanks h = TraceToHorovodLateRanks(t, PrimaryWorker(t));
  EXPECT_EQ(h.negotiations, 8);
  // The markers 1 us apart (rank order) make rank 3 last by a microsecond: far under the
  // straggler's share of the window.
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(testing::FindFinding(r, "straggler"), nullptr) << r.verdict.summary;
}

TEST(HorovodStraggler, OnlyTheStartupBroadcastIsPaidOnce) {
  Trace t = Import(Timeline("NEGOTIATE_BROADCAST", 3, 1, 0, 60));
  Report r = AnalyzeTrace(t);
  const Finding* f = testing::FindFinding(r, "straggler");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->severity, FindingSeverity::kHigh);
  EXPECT_NE(testing::EvidenceText(*f).find("start-up broadcast"), std::string::npos);
  if (const Finding* c = testing::FindFinding(r, "collective_bound")) {
    EXPECT_EQ(c->severity, FindingSeverity::kLow);
    EXPECT_EQ(c->fix.summary.find("fusion threshold"), std::string::npos) << c->fix.summary;
  }
}

// The same with one rank's markers alone (a single-process run, whose negotiations no straggler
// reading counts): the collective time is still the start-up broadcast's, with no per-step gain
// and no fusion advice.
TEST(HorovodStraggler, OneRanksStartupBroadcastGetsNoFusionAdvice) {
  Report r = AnalyzeTrace(Import(Timeline("NEGOTIATE_BROADCAST", 8, 1, 0, 0, /*ranks=*/1)));
  const Finding* c = testing::FindFinding(r, "collective_bound");
  ASSERT_NE(c, nullptr) << r.verdict.summary;
  EXPECT_EQ(c->severity, FindingSeverity::kLow);
  EXPECT_EQ(c->gain_upper_bound, 1.0);
  EXPECT_EQ(c->fix.summary.find("fusion threshold"), std::string::npos) << c->fix.summary;
  EXPECT_NE(testing::EvidenceText(*c).find("start-up broadcast"), std::string::npos);
}

// A timeline of the start-up broadcast alone holds no training step: the verdict says so and no
// finding is more than low; one all-reduce beside the broadcasts makes it a training window.
TEST(HorovodStraggler, ABroadcastOnlyWindowIsStartupBothSides) {
  Trace only = Import(Timeline("NEGOTIATE_BROADCAST", 5, 1, 0, 0));
  EXPECT_EQ(HorovodStartupBroadcastsOnly(only, PrimaryWorker(only)), 5);
  Report r = AnalyzeTrace(only);
  EXPECT_EQ(r.verdict.summary.rfind("a Horovod timeline of the start-up broadcast only (5 tensors", 0), 0u)
      << r.verdict.summary;
  EXPECT_EQ(r.coverage.confidence, "low");
  for (const Finding& f : r.findings) EXPECT_LE(f.severity, FindingSeverity::kLow) << f.id;
  std::string both = Timeline("NEGOTIATE_BROADCAST", 5, 1, 0, 0);
  const std::string reduce = Timeline("NEGOTIATE_ALLREDUCE", 1, 1, 0, 0);
  both += reduce.substr(reduce.find("{\"ph\""));  // its events, moved to tensor 1's lane
  Trace mixed = Import(both);
  EXPECT_EQ(HorovodStartupBroadcastsOnly(mixed, PrimaryWorker(mixed)), 0);
  EXPECT_EQ(AnalyzeTrace(mixed).verdict.summary.find("start-up broadcast only"), std::string::npos);
}

// A Horovod timeline has no step markers: its iterations start where the first gradient tensor's
// all-reduce is negotiated, each time; the start-up broadcast before the first is no step's, and
// the straggler's lateness is counted over the steps only. A timeline with one negotiation per
// tensor holds no repeat: one region, as before.
TEST(HorovodStraggler, IterationsFromTheAllReduceNegotiationsStartupLeftOutBothSides) {
  // A start-up broadcast in which rank 3 is 500 ms late, then 5 iterations in which rank 2 is 30 ms late.
  std::string s = Timeline("NEGOTIATE_BROADCAST", 2, 1, 3, 500);
  const std::string reduce = Timeline("NEGOTIATE_ALLREDUCE", 3, 5, 2, 30);
  std::string shifted;  // the all-reduce cycles moved after the broadcast, on lanes 1-3
  for (size_t at = reduce.find("{\"ph\""); at != std::string::npos;) {
    const size_t end = reduce.find("},\n", at) + 3;
    std::string e = reduce.substr(at, end - at);
    const size_t ts = e.find("\"ts\": ") + 6, ts_end = e.find(',', ts);
    e.replace(ts, ts_end - ts, std::to_string(std::stod(e.substr(ts, ts_end - ts)) + 1e6));
    shifted += e;
    at = reduce.find("{\"ph\"", end);
  }
  Trace t = Import(s + shifted);
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  EXPECT_TRUE(w.inferred);
  EXPECT_EQ(w.steps.size(), 4u);  // 5 negotiations of the first tensor: 4 whole iterations
  EXPECT_NE(w.source.find("NEGOTIATE_ALLREDUCE"), std::string::npos) << w.source;
  Report r = AnalyzeTrace(t);
  const Finding* f = testing::FindFinding(r, "straggler");
  ASSERT_NE(f, nullptr) << r.verdict.summary;
  EXPECT_NE(f->title.find("rank 2"), std::string::npos) << f->title;  // not the start-up's rank 3
  Trace once = Import(Timeline("NEGOTIATE_ALLREDUCE", 3, 1, 2, 30));
  EXPECT_TRUE(TraceToSteps(once, PrimaryWorker(once)).whole_window);
}

// One gradient tensor of `shape` (float32) all-reduced each cycle: negotiation, the ALLREDUCE
// phase around its MPI transfer, and the end that carries the tensor's dtype and shape; 40 ms
// of transfer in each 100 ms cycle.
std::string SizedAllreduces(const char* shape, int cycles) {
  std::string s = "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"HorovodAllreduce_w\"}},\n";
  for (int c = 0; c < cycles; ++c) {
    const double t = c * 100000.0;
    auto at = [&](double us) { return std::to_string(t + us); };
    s += "{\"ph\": \"B\", \"name\": \"NEGOTIATE_ALLREDUCE\", \"ts\": " + at(0) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"E\", \"ts\": " + at(100) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"B\", \"name\": \"ALLREDUCE\", \"ts\": " + at(100) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"B\", \"name\": \"MPI_ALLREDUCE\", \"ts\": " + at(110) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"E\", \"ts\": " + at(40100) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"E\", \"ts\": " + at(40110) + ", \"pid\": 1, \"args\": {\"dtype\": \"float32\", \"shape\": \"" +
         shape + "\"}},\n";
  }
  return s;
}

// The sizes on the all-reduces' ends are read: where most of their time is in tensors past the
// 64 MiB fusion threshold, fusing more cannot help and the advice is fewer bytes or syncs; small
// tensors keep the fusion advice.
TEST(HorovodStraggler, AllreduceSizesDecideTheFusionAdviceBothSides) {
  auto finding = [](const char* shape) {
    Trace t = Import(SizedAllreduces(shape, 6));
    const WorkerId w = PrimaryWorker(t);
    HorovodAllreduceSizes z = TraceToHorovodAllreduceSizes(t, w);
    EXPECT_EQ(z.sized, 6);
    Report r = AnalyzeTrace(t);
    const Finding* f = testing::FindFinding(r, "collective_bound");
    EXPECT_NE(f, nullptr) << r.verdict.summary;
    return f ? *f : Finding{};
  };
  const Finding large = finding("[4096, 4097]");  // 67.1 MB, just past 64 MiB
  EXPECT_NE(testing::EvidenceText(large).find("the largest 67.1 MB in 40.0 ms"), std::string::npos)
      << testing::EvidenceText(large);
  EXPECT_NE(large.fix.summary.find("fusing more cannot shorten them"), std::string::npos) << large.fix.summary;
  EXPECT_NE(large.fix.pytorch.find("hvd.Compression.fp16"), std::string::npos);
  const Finding small = finding("[4096, 4095]");  // 67.1 MB, just under 64 MiB
  EXPECT_NE(small.fix.summary.find("raise its fusion threshold"), std::string::npos) << small.fix.summary;
}

// Between Horovod's phases, gaps of any length are the framework's work the timeline does not
// record: untraced, never host compute.
TEST(HorovodStraggler, ShortGapsBetweenPhasesAreUntracedNotHostCompute) {
  std::string s = "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"HorovodAllreduce_g\"}},\n";
  for (int c = 0; c < 10; ++c) {
    const double t = c * 21500.0;  // 1 ms negotiation, 20 ms all-reduce, then 0.5 ms with nothing
    s += "{\"ph\": \"B\", \"name\": \"NEGOTIATE_ALLREDUCE\", \"ts\": " + std::to_string(t) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"E\", \"ts\": " + std::to_string(t + 1000) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"B\", \"name\": \"MPI_ALLREDUCE\", \"ts\": " + std::to_string(t + 1000) + ", \"pid\": 1},\n";
    s += "{\"ph\": \"E\", \"ts\": " + std::to_string(t + 21000) + ", \"pid\": 1},\n";
  }
  Trace t = Import(s);
  ASSERT_EQ(t.framework, Framework::kHorovod);
  const WorkerId w = PrimaryWorker(t);
  StepSignals sig = TraceToStepSignals(t, w, TraceToSteps(t, w));
  EXPECT_EQ(sig.step_count, 9);  // iterations from the negotiations: one 0.5 ms gap in each
  EXPECT_GT(sig.untraced_host_ms, 0.4);
  EXPECT_LT(sig.category_ms[int(StepCategory::kHostCompute)], 0.01);
}

}  // namespace
}  // namespace stepdoctor
