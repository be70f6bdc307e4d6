// The Chrome importer against the time range and id conversions (core/checked_time.h): the
// ../shared/fuzz-found reproducers written inline (they always run), and the same edges one
// nanosecond either side of each bound, through import, steps, step signals and the report.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"

namespace stepdoctor {
namespace {

struct Imported {
  Status status;
  Trace trace;
};

Imported Import(const std::string& json) {
  Imported out;
  auto src = MemorySource(json, "inline.json");
  out.status = ImportChromeJson(*src, out.trace, nullptr, {});
  return out;
}

// Nanoseconds as Chrome's microsecond text with three decimals (exact).
std::string Us(int64_t ns) {
  std::string sign = ns < 0 ? "-" : "";
  uint64_t a = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
  std::string frac = std::to_string(a % 1000);
  return sign + std::to_string(a / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

std::string X(const std::string& name, int64_t ts_ns, int64_t dur_ns, const std::string& pid = "1",
              const std::string& tid = "1") {
  return R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":)" + pid + R"(,"tid":)" + tid + R"(,"ts":)" +
         Us(ts_ns) + R"(,"dur":)" + Us(dur_ns) + "}";
}

// fuzz-found/chrome_ts_plus_dur_overflow.json: ts and dur of 2^62 ns each. ts + dur is 2^63,
// past int64; the release build let the sum wrap and the event vanish from the analysis
// ("no steps or activity to analyse"). The start itself is past the range: counted as such.
TEST(ChromeTimeRange, TsPlusDurReproducerIsCounted) {
  auto r = Import(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":4611686018427387.904,"dur":4611686018427387.904}])");
  EXPECT_EQ(r.status.code(), ErrorCode::kCorruptInput);
  EXPECT_NE(r.status.message().find("a time outside the representable range"), std::string::npos) << r.status.message();
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTimeOutOfRange), 1u);
  EXPECT_EQ(r.trace.EventCount(), 0u);
}

// One nanosecond either side: an end at kMaxTimeNs is kept, one past it is counted.
TEST(ChromeTimeRange, EventEndOnBothSidesOfTheBound) {
  const int64_t half = int64_t{1} << 61;
  auto r = Import("[" + X("at_bound", half, half - 1) + "," + X("past_bound", half, half) + "," +
                  X("start_at_bound", kMaxTimeNs, 0) + "," + X("start_past", kMaxTimeNs + 1, 0) + "," +
                  X("lowest", -kMaxTimeNs, 5) + "," + X("below", -kMaxTimeNs - 1, 5) + "]");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.EventCount(), 3u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTimeOutOfRange), 3u);
  ASSERT_EQ(r.trace.timelines.size(), 1u);
  const Timeline& t = r.trace.timelines[0];
  EXPECT_EQ(t.ev.start_ns[0], -kMaxTimeNs);
  EXPECT_EQ(t.end_ns(1), kMaxTimeNs);
  EXPECT_EQ(t.ev.start_ns[2], kMaxTimeNs);
  // The whole window spans (nearly) 2^63 ns and is computed without overflow.
  StepWindows w = TraceToSteps(r.trace, WorkerId{0});
  EXPECT_EQ(w.window_start_ns, -kMaxTimeNs);
  EXPECT_EQ(w.window_end_ns, kMaxTimeNs);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].dur_ns(), 2 * kMaxTimeNs);
}

// Steps right below the top of the range read as steps: three 1 ms ProfilerSteps whose last one
// ends at kMaxTimeNs, each holding a 0.5 ms operator.
TEST(ChromeTimeRange, StepsAtTheTopOfTheRangeAreAnalysed) {
  std::string ev;
  for (int k = 0; k < 3; ++k) {
    const int64_t start = kMaxTimeNs - (3 - k) * 1'000'000;
    ev += std::string(k ? "," : "") + R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" +
          std::to_string(k + 1) + R"(","pid":1,"tid":1,"ts":)" + Us(start) + R"(,"dur":1000.000},)" +
          X("aten::mm", start + 100'000, 500'000);
  }
  auto r = Import(R"({"schemaVersion":1,"traceEvents":[)" + ev + "]}");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.trace.diagnostics.empty());
  Report rep = AnalyzeTrace(r.trace);
  EXPECT_EQ(rep.steps.count, 3);
  EXPECT_DOUBLE_EQ(rep.steps.median_ms, 1.0);
  EXPECT_DOUBLE_EQ(rep.window_ms, 3.0);
  double sum_pct = 0;
  for (const auto& b : rep.breakdown) {
    EXPECT_GE(b.pct, 0);
    sum_pct += b.pct;
  }
  EXPECT_NEAR(sum_pct, 100.0, 0.01);
}

// fuzz-found/chrome_B_E_span_overflow.json: B at -2^62 ns, E at +2^62 ns. E.ts - B.ts is 2^63,
// past int64; the release build skipped the pair as "negative duration". -2^62 is past the range,
// so the B is counted as out of range and the E, with no B open, as unmatched.
TEST(ChromeTimeRange, BeginEndSpanReproducerIsCounted) {
  auto r = Import(R"({"traceEvents":[{"ph":"B","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":-4611686018427387.904},)"
                  R"({"ph":"E","pid":1,"tid":1,"ts":4611686018427387.904}]})");
  EXPECT_EQ(r.status.code(), ErrorCode::kCorruptInput);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTimeOutOfRange), 2u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kNegativeDuration), 0u);
}

// The widest pair the range allows (2^63 - 2 ns) is a pair, not a negative duration.
TEST(ChromeTimeRange, WidestBeginEndPairIsKept) {
  auto r = Import(R"({"traceEvents":[{"ph":"B","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":)" + Us(-kMaxTimeNs) +
                  R"(},{"ph":"E","pid":1,"tid":1,"ts":)" + Us(kMaxTimeNs) + "}]}");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.trace.diagnostics.empty());
  ASSERT_EQ(r.trace.EventCount(), 1u);
  const Timeline& t = r.trace.timelines[0];
  EXPECT_EQ(t.ev.dur_ns[0], 2 * kMaxTimeNs);
  EXPECT_EQ(t.end_ns(0), kMaxTimeNs);
  Report rep = AnalyzeTrace(r.trace);
  EXPECT_DOUBLE_EQ(rep.window_ms, double(2 * kMaxTimeNs) / 1e6);
}

// fuzz-found/chrome_pid_tid_float_cast.json: pids 1e300 and -1e300, tids 2^64 - 1 and -1e19.
// The release build cast each double to int64 (undefined; on x86 all four became INT64_MIN) and
// merged both events into one thread. Each id is now read as its text: two threads.
TEST(ChromeTimeRange, PidTidFloatCastReproducerKeepsThreadsApart) {
  auto r = Import(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1e300,"tid":18446744073709551615,"ts":1,"dur":1},)"
                  R"({"ph":"X","cat":"cpu_op","name":"b","pid":-1e300,"tid":-1e19,"ts":2,"dur":1}]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.trace.timelines.size(), 2u);
  EXPECT_EQ(r.trace.timelines[0].ev.size(), 1u);
  EXPECT_EQ(r.trace.timelines[1].ev.size(), 1u);
  EXPECT_EQ(r.trace.timelines[0].name, "thread 18446744073709551615");
  EXPECT_EQ(r.trace.timelines[1].name, "thread -1e19");
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kIdNotInt64), 2u);  // one per event
}

// Whole numbers written as doubles are those numbers; 2^63 - 1 is still an int64, 2^63 is not.
TEST(ChromeTimeRange, IdsOnBothSidesOfInt64) {
  auto r = Import("[" + X("a", 1000, 1, "3.0", "1e3") + "," + X("b", 2000, 1, "3", "1000") + "," +
                  X("c", 3000, 1, "1", "9223372036854775807") + "," + X("d", 4000, 1, "1", "9223372036854775808") + "," +
                  X("e", 5000, 1, "1", "1.5") + "," + X("f", 6000, 1, "1", "\"1.5\"") + "]");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  auto events_on = [&](const std::string& name) -> int {
    for (const auto& t : r.trace.timelines)
      if (t.name == name) return int(t.ev.size());
    return -1;
  };
  EXPECT_EQ(events_on("thread 1000"), 2);  // 3.0/1e3 and 3/1000: one thread
  EXPECT_EQ(events_on("thread 9223372036854775807"), 1);
  EXPECT_EQ(events_on("thread 9223372036854775808"), 1);
  EXPECT_EQ(events_on("thread 1.5"), 2);   // the number 1.5 and the string "1.5" name one thread
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kIdNotInt64), 2u);  // 9223372036854775808 and 1.5
}

// fuzz-found/chrome_string_pid_collides_2p60.json: pid "foo", pid 2^60 and pid 7, all tid 9.
// A string pid numbered from 2^60 would share 2^60's timeline; string and numeric ids live in
// separate spaces, so there are three host threads of one event each.
TEST(ChromeTimeRange, StringPidNeverCollidesWithANumber) {
  auto r = Import(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":"foo","tid":9,"ts":14,"dur":1},)"
                  R"({"ph":"X","cat":"cpu_op","name":"b","pid":1152921504606846976,"tid":9,"ts":15,"dur":1},)"
                  R"({"ph":"X","cat":"cpu_op","name":"c","pid":7,"tid":9,"ts":15,"dur":1},)"
                  R"({"ph":"X","cat":"cpu_op","name":"d","pid":0,"tid":9,"ts":16,"dur":1}]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.trace.timelines.size(), 4u);
  for (const auto& t : r.trace.timelines) {
    EXPECT_EQ(t.ev.size(), 1u) << t.name;
    EXPECT_EQ(t.kind, TimelineKind::kHostThread) << t.name;
  }
  EXPECT_TRUE(r.trace.diagnostics.empty());
}

// Kineto's [memory] instants carry the allocator's totals as numbers: one past int64 is counted
// and left out of the memory series, the next is kept.
TEST(ChromeTimeRange, MemoryTotalsPastInt64AreCounted) {
  auto r = Import(R"({"traceEvents":[)"
                  R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":1,"args":{"Total Allocated":1e300,"Device Id":0,"Device Type":1}},)"
                  R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":2,"args":{"Total Allocated":4096,"Device Id":0,"Device Type":1}},)" +
                  X("op", 0, 5) + "]}");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kValueOutOfRange), 1u);
  ASSERT_EQ(r.trace.counters.size(), 1u);
  EXPECT_EQ(r.trace.counters[0].value, (std::vector<double>{4096}));
}

}  // namespace
}  // namespace stepdoctor
