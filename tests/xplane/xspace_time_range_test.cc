// The XPlane importer against the time range (core/checked_time.h): a line's timestamp plus an
// event's offset, and that plus its duration, must be times in range. The
// ../shared/fuzz-found reproducer written inline, and the bound from both sides.
#include <gtest/gtest.h>

#include <limits>

#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/xplane/xspace_to_trace.h"
#include "xplane/xplane_builder.h"

namespace stepdoctor {
namespace {

using testing::XSpaceBuilder;

constexpr int64_t kMs = 1'000'000;

// Three 100 ms train_step annotations back to back on a host line starting at `base_ns`.
Trace ThreeSteps(int64_t base_ns) {
  XSpaceBuilder b;
  auto line = b.AddPlane("/host:CPU").AddLine(1, "python", base_ns);
  for (int k = 0; k < 3; ++k) line.Event("train_step", k * 100 * kMs, 100 * kMs);
  Trace t;
  const std::string bytes = b.Serialize();  // the source reads it in place
  auto src = MemorySource(bytes, "host.xplane.pb");
  Status st = ImportXSpace(*src, t);
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

// fuzz-found/xplane_timestamp_near_int64_max.xplane.pb: the line starts 150 ms before INT64_MAX;
// the third step's start overflowed and the release build saw 2 steps. Every one of the three
// lies past the range (year 2262): all counted, none kept.
TEST(XSpaceTimeRange, TimestampNearInt64MaxReproducer) {
  Trace t = ThreeSteps(std::numeric_limits<int64_t>::max() - 150 * kMs);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 3u);
  EXPECT_EQ(t.EventCount(), 0u);
}

// The last step ends exactly at kMaxTimeNs: three steps. One nanosecond later: two, and the
// third counted.
TEST(XSpaceTimeRange, StepsOnBothSidesOfTheBound) {
  Trace at = ThreeSteps(kMaxTimeNs - 300 * kMs);
  EXPECT_EQ(at.diagnostics.count(ImportIssue::kTimeOutOfRange), 0u);
  StepWindows w = TraceToSteps(at, PrimaryWorker(at));
  ASSERT_EQ(w.steps.size(), 3u);
  EXPECT_EQ(w.steps.back().end_ns, kMaxTimeNs);
  for (const auto& s : w.steps) EXPECT_EQ(s.dur_ns(), 100 * kMs);

  Trace past = ThreeSteps(kMaxTimeNs - 300 * kMs + 1);
  EXPECT_EQ(past.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);
  EXPECT_EQ(TraceToSteps(past, PrimaryWorker(past)).steps.size(), 2u);
}

// The low end, and a line at INT64_MIN with the largest offset a proto can hold: still far
// below the range, counted (the sum must not wrap into a plausible time).
TEST(XSpaceTimeRange, LowEndOfTheRange) {
  Trace low = ThreeSteps(-kMaxTimeNs);
  EXPECT_EQ(low.diagnostics.count(ImportIssue::kTimeOutOfRange), 0u);
  EXPECT_EQ(TraceToSteps(low, PrimaryWorker(low)).steps.size(), 3u);

  Trace below = ThreeSteps(-kMaxTimeNs - 1);
  EXPECT_EQ(below.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);  // the first step starts 1 ns too early

  XSpaceBuilder b;
  auto line = b.AddPlane("/host:CPU").AddLine(1, "python", std::numeric_limits<int64_t>::min());
  xplane::XEvent* e = line.Event("train_step", 0, 100 * kMs);
  e->set_offset_ps(std::numeric_limits<int64_t>::max());  // INT64_MAX ps = 9.2e15 ns: still far below
  Trace t;
  const std::string bytes = b.Serialize();
  auto src = MemorySource(bytes, "host.xplane.pb");
  ASSERT_TRUE(ImportXSpace(*src, t).ok());
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);
  EXPECT_EQ(t.EventCount(), 0u);
}

}  // namespace
}  // namespace stepdoctor
