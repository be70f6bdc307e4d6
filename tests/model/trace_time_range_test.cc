// Trace::Finalize holds whatever built the trace to the time range (core/checked_time.h): events
// whose start or end and samples whose time lie outside it are dropped and counted, the rest
// (with their args) kept; then analyses can subtract any two times, shown here on the widest
// spans the range allows.
#include <gtest/gtest.h>

#include <limits>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/series_names.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

TEST(TraceTimeRange, FinalizeDropsAndCountsEventsOutsideTheRange) {
  Trace t;
  WorkerId w = t.AddWorker({});
  DeviceId d = t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0);
  Timeline& tl = t.timeline(t.AddTimeline(w, d, TimelineKind::kHostThread, 1, "main"));
  StringId key = t.strings.Intern("k");
  auto add = [&](int64_t start, int64_t dur, int64_t arg) {
    uint32_t i = tl.Add(start, dur, t.strings.Intern("e" + std::to_string(arg)), EventKind::kFrameworkOp);
    Arg a;
    a.key = key;
    a.i = arg;
    tl.AddArg(i, a);
  };
  add(kMaxTimeNs - 10, 10, 1);        // ends on the bound: kept
  add(kMaxTimeNs - 10, 11, 2);        // ends past it
  add(kI64Max, 0, 3);                 // starts past it
  add(-kMaxTimeNs, 0, 4);             // starts on the low bound: kept
  add(-kMaxTimeNs - 1, 5, 5);         // starts below it
  add(0, kI64Max, 6);                 // an end past int64 itself
  t.counters.push_back({w, d, "cpu_pct", "%", {kI64Max, 5, -kI64Max, 6}, {1, 2, 3, 4}});
  t.counters.push_back({w, d, "gone_pct", "%", {kMaxTimeNs + 1}, {1}});
  t.Finalize();

  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 4u + 2u + 1u);
  ASSERT_EQ(tl.ev.size(), 2u);
  EXPECT_EQ(tl.ev.start_ns[0], -kMaxTimeNs);
  EXPECT_EQ(tl.FindArg(0, key)->i, 4);
  EXPECT_EQ(tl.end_ns(1), kMaxTimeNs);
  EXPECT_EQ(tl.FindArg(1, key)->i, 1);
  ASSERT_EQ(t.counters.size(), 1u);  // a series left empty goes
  EXPECT_EQ(t.counters[0].ts_ns, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(t.counters[0].value, (std::vector<double>{2, 4}));

  t.Finalize();  // nothing more to drop: the count stays
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 7u);
}

// A byte series holds what int64 can: 2^63 - 1024 bytes is kept, 2^63 and 1e300 are not; other
// units are not bounded.
TEST(TraceTimeRange, FinalizeDropsByteCountsPastInt64) {
  Trace t;
  WorkerId w = t.AddWorker({});
  DeviceId d = t.GetOrAddDevice(w, DeviceKind::kGpu, 0);
  t.counters.push_back({w, d, "gpu0_memory_allocated_bytes", "bytes", {1, 2, 3, 4}, {9223372036854774784.0, 9223372036854775808.0, 1e300, 5}});
  t.counters.push_back({w, d, "gpu0_util_pct", "%", {1}, {1e300}});
  t.Finalize();
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kValueOutOfRange), 2u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 0u);
  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters[0].value, (std::vector<double>{9223372036854774784.0, 5}));
  EXPECT_EQ(t.counters[1].value.size(), 1u);
}

// Samples at both ends of the range: the window and the gaps are differences of nearly 2^63 ns,
// computed without overflow.
TEST(TraceTimeRange, ResourceWindowAcrossTheWholeRange) {
  Trace t;
  WorkerId w = t.AddWorker({});
  DeviceId gpu = t.GetOrAddDevice(w, DeviceKind::kGpu, 0);
  CounterSeries c{w, gpu, series::GpuSeriesName(0, series::GpuMetric::kUtilPct), "%", {}, {}};
  for (int i = 0; i < 5; ++i) {
    c.ts_ns.push_back(-kMaxTimeNs + int64_t(i) * (kMaxTimeNs / 2));
    c.value.push_back(50);
  }
  c.ts_ns.back() = kMaxTimeNs;
  t.counters.push_back(c);
  t.Finalize();
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTimeOutOfRange), 0u);
  auto r = ComputeResourceSignals(t);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->window_s, double(2 * kMaxTimeNs) / 1e9);
  EXPECT_GT(r->interval_s, 0);
}

}  // namespace
}  // namespace stepdoctor
