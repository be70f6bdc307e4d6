// PyTorch's memory timeline (export_memory_timeline): both forms read into one series a
// category, bad entries counted, pre-existing memory placed at the first time; the signals
// (peak, categories at the peak, cycles, growth between iterations: both sides of
// kMemoryGrowthPct) and the memory_composition finding's advice by the largest category; the
// corpus timeline against a recount of its entries.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/memory_timeline_signals.h"
#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/model/series_names.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using series::MemoryCategory;
constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kT0 = 1696966047096061874;  // ns since the epoch, as PyTorch writes them

double At(const Trace& t, MemoryCategory c, size_t i) {
  const CounterSeries* s = testing::FindCounter(t, series::MemoryTimelineSeriesName(c));
  return s && i < s->value.size() ? s->value[i] : -1;
}

// Raw entries [t, action, bytes, category] for `cycles` iterations: parameters (category 0)
// held before profiling, then each iteration makes `act_mib` of activations (4) and frees them,
// leaving `leak_mib` more of unknown (7) behind each time.
std::string RawCycles(int cycles, int act_mib, double leak_mib) {
  std::string s = fmt::format("[[-1, 1, {}, 0], [-1, 1, {}, 1]", 100 * kMiB, 200 * kMiB);
  int64_t t = kT0;
  for (int i = 0; i < cycles; ++i) {
    for (int k = 0; k < 4; ++k) s += fmt::format(", [{}, 2, {}, 4]", t += 1000000, act_mib / 4 * kMiB);
    for (int k = 0; k < 4; ++k) s += fmt::format(", [{}, 4, {}, 4]", t += 1000000, -act_mib / 4 * kMiB);
    if (leak_mib > 0) s += fmt::format(", [{}, 2, {}, 7]", t += 1000000, int64_t(leak_mib * kMiB));
    s += fmt::format(", [{}, 3, {}, 5], [{}, 3, {}, 5]", t += 1000000, -kMiB, t, kMiB);  // a new version
  }
  return s + "]";
}

TEST(MemoryTimeline, DetectedFromItsShapeNotItsName) {
  EXPECT_EQ(DetectFormat("[[-1, 1, 37888, 7], [-1, 1, 512, 7]]", "x.json"), InputFormat::kMemoryTimeline);
  EXPECT_EQ(DetectFormat("[[1, 2], [[0, 1, 2, 3, 4, 5, 6, 7, 8]]]", "memory.json"), InputFormat::kMemoryTimeline);
  EXPECT_EQ(DetectFormat("[{\"ph\": \"X\", \"ts\": 1}]", "x.json"), InputFormat::kChromeJson);
  EXPECT_EQ(DetectFormat("[[\"a\", 1]]", "x.json"), InputFormat::kJsonOther);
}

TEST(MemoryTimeline, RawEntriesBecomeOneSeriesACategory) {
  Trace t;
  InputFormat f;
  ASSERT_TRUE(testing::ImportText(RawCycles(2, 400, 0), "memory.raw.json", &t, &f).ok());
  EXPECT_EQ(f, InputFormat::kMemoryTimeline);
  t.Finalize();
  EXPECT_EQ(t.framework, Framework::kPyTorch);
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].hostname, "memory");
  // Pre-existing parameters and optimizer state sit at the first real time, with what came then.
  const CounterSeries* act = testing::FindCounter(t, series::MemoryTimelineSeriesName(MemoryCategory::kActivation));
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->ts_ns.front(), kT0 + 1000000);
  EXPECT_EQ(At(t, MemoryCategory::kParameter, 0), 100.0 * kMiB);
  EXPECT_EQ(At(t, MemoryCategory::kOptimizerState, 0), 200.0 * kMiB);
  EXPECT_EQ(At(t, MemoryCategory::kActivation, 3), 400.0 * kMiB);
  EXPECT_EQ(At(t, MemoryCategory::kActivation, 7), 0.0);
  // A new version at one time: the old version's bytes leave and the new one's join (net 0).
  EXPECT_EQ(At(t, MemoryCategory::kGradient, act->value.size() - 1), 0.0);
}

TEST(MemoryTimeline, BadEntriesAreCountedAndTheRestRead) {
  Trace t;
  const std::string s = fmt::format("[[{0}, 2, 1024, 4], [{0}, 9, 1024, 4], [{0}, 2, 1024, 8], [1, 2], \"x\", "
                                    "[{1}, 2, 2048, 4]]",
                                    kT0, kT0 + 5);
  ASSERT_TRUE(testing::ImportText(s, "m.raw.json", &t).ok());
  EXPECT_TRUE(testing::AnyNoteContains(t, "4 entries that are not [time, action 1-4, bytes, category 0-7] skipped"))
      << testing::NotesOf(t);
  EXPECT_EQ(At(t, MemoryCategory::kActivation, 1), 3072.0);
  // Cut short: what came before the cut is kept, and the cut said.
  Trace cut;
  ASSERT_TRUE(testing::ImportText(s.substr(0, s.size() - 12), "m.raw.json", &cut).ok());
  EXPECT_TRUE(testing::AnyNoteContains(cut, "the entries before it were read")) << testing::NotesOf(cut);
  Trace empty;
  EXPECT_EQ(testing::ImportText("[[]]", "m.raw.json", &empty).code(), ErrorCode::kEmptyInput);
}

TEST(MemoryTimeline, CoalescedRowsInMicrosecondsOrNanoseconds) {
  auto first_ts = [](int64_t t0) {
    Trace t;
    const std::string s = fmt::format("[[-1, {}, {}], [[0, 10, 0, 0, 0, 0, 0, 0, 0], [0, 10, 0, 0, 0, 50, 0, 0, 0], "
                                      "[0, 10, 0, 0, 0, 0, 0, 0, 5]]]",
                                      t0, t0 + 1000);
    EXPECT_TRUE(testing::ImportText(s, "m.json", &t).ok());
    t.Finalize();
    // The pre-existing row (time -1) joins the first time's, whose state it is before.
    EXPECT_EQ(At(t, MemoryCategory::kActivation, 0), 50);
    EXPECT_EQ(At(t, MemoryCategory::kUnknown, 1), 5);
    const CounterSeries* c = testing::FindCounter(t, series::MemoryTimelineSeriesName(MemoryCategory::kParameter));
    return c ? c->ts_ns : std::vector<int64_t>{};
  };
  const std::vector<int64_t> us = first_ts(1696966047096061);  // later releases: microseconds
  ASSERT_EQ(us.size(), 2u);
  EXPECT_EQ(us[0], int64_t(1696966047096061) * 1000);
  EXPECT_EQ(us[1] - us[0], 1000 * 1000);
  const std::vector<int64_t> ns = first_ts(kT0);  // earlier ones: nanoseconds
  ASSERT_EQ(ns.size(), 2u);
  EXPECT_EQ(ns[0], kT0);
  EXPECT_EQ(ns[1] - ns[0], 1000);
}

MemoryTimelineSignals SignalsOf(const std::string& raw) {
  Trace t;
  EXPECT_TRUE(testing::ImportText(raw, "m.raw.json", &t).ok());
  t.Finalize();
  auto s = TraceToMemoryTimeline(t);
  EXPECT_TRUE(s.has_value());
  return s ? *s : MemoryTimelineSignals{};
}

// Growth between iterations: troughs that rise at each of >= kGrowthMinTroughs, by
// kMemoryGrowthPct of the peak or more in all.
TEST(MemoryComposition, GrowthBetweenIterationsBothSides) {
  // Peak about 300 + 400 MiB; 5 cycles leave 4 troughs. 3 troughs' growth of kMemoryGrowthPct:
  const double peak_mib = 300 + 400;
  const double enough = kMemoryGrowthPct / 100 * peak_mib / 3 * 1.1, short_of = kMemoryGrowthPct / 100 * peak_mib / 3 * 0.8;
  MemoryTimelineSignals grows = SignalsOf(RawCycles(5, 400, enough));
  EXPECT_EQ(grows.cycles, 5);
  EXPECT_EQ(grows.troughs_bytes.size(), 4u);
  EXPECT_TRUE(grows.grows);
  EXPECT_NEAR(grows.growth_per_cycle_bytes, enough * kMiB, 1);
  EXPECT_FALSE(SignalsOf(RawCycles(5, 400, short_of)).grows);
  MemoryTimelineSignals flat = SignalsOf(RawCycles(5, 400, 0));
  EXPECT_FALSE(flat.grows);
  EXPECT_EQ(flat.peak_bytes, 700.0 * kMiB);
  EXPECT_EQ(flat.at_peak[size_t(MemoryCategory::kActivation)], 400.0 * kMiB);
  EXPECT_EQ(flat.capacity_bytes, 0);  // the timeline names no device
}

TEST(MemoryComposition, TheAdviceFollowsTheLargestCategoryAndGrowthLeads) {
  auto diagnose = [](const std::string& raw) {
    Trace t;
    EXPECT_TRUE(testing::ImportText(raw, "m.raw.json", &t).ok());
    t.Finalize();
    return AnalyzeTrace(t);
  };
  Report acts = diagnose(RawCycles(3, 2000, 0));
  const Finding* f = testing::FindFinding(acts, "memory_composition");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->title.find("of it activations"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.pytorch.find("checkpoint("), std::string::npos);
  EXPECT_EQ(acts.coverage.device_activity, "memory_timeline");
  EXPECT_EQ(acts.verdict.summary.rfind("a memory timeline only: ", 0), 0u) << acts.verdict.summary;
  // Parameters and optimizer state larger than the activations: shard the model's state.
  Report state = diagnose(RawCycles(3, 100, 0));
  ASSERT_NE(f = testing::FindFinding(state, "memory_composition"), nullptr);
  EXPECT_NE(f->fix.pytorch.find("FSDP"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.pytorch.find("checkpoint("), std::string::npos);
  // Memory that grows between iterations: moderate, and that is said first.
  Report leak = diagnose(RawCycles(5, 400, 40));
  ASSERT_NE(f = testing::FindFinding(leak, "memory_composition"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_NE(f->title.find("grows by 40 MiB each"), std::string::npos) << f->title;
  EXPECT_EQ(f->fix.summary.rfind("First, what stays held", 0), 0u) << f->fix.summary;
}

// The corpus timeline (HTA's test data): figures against a recount of its entries.
TEST(MemoryTimeline, CorpusTimelineAgainstARecount) {
  SD_CORPUS_OR_SKIP(path, "hta-testdata/memory_analysis/memory_timeline.raw.gz");
  auto imported = ImportPaths({path}, {});
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  auto s = TraceToMemoryTimeline(imported->trace);
  ASSERT_TRUE(s.has_value());
  // Recounted from the file's 16,845 entries with a few lines of Python: the peak of all
  // categories together, 2940.02 MiB at 98.42 ms, 2472.4 MiB of it activations; 5 iterations,
  // 213.8 MiB held between them each time.
  EXPECT_NEAR(s->peak_bytes / kMiB, 2940.02, 0.01);
  EXPECT_NEAR(s->peak_at_s * 1e3, 98.42, 0.01);
  EXPECT_NEAR(s->at_peak[size_t(MemoryCategory::kActivation)] / kMiB, 2472.4, 0.1);
  EXPECT_EQ(s->cycles, 5);
  ASSERT_EQ(s->troughs_bytes.size(), 4u);
  for (double t : s->troughs_bytes) EXPECT_NEAR(t / kMiB, 213.8, 0.1);
  EXPECT_FALSE(s->grows);
}

}  // namespace
}  // namespace stepdoctor
