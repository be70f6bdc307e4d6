// Inline inputs for the Chrome-trace importer's harder edges, after the cases Perfetto's and
// Catapult's JSON importers test: string pids, key order, huge values, time ranges, UTF-8,
// counter ids and what the import says when nothing could be read.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor {
namespace {

struct Imported {
  Status status;
  Trace trace;
};

Imported Import(const std::string& json, chrome::TokenizerOptions o = {}) {
  Imported out;
  auto src = MemorySource(json, "inline.json");
  out.status = ImportChromeJson(*src, out.trace, nullptr, o);
  return out;
}

// Through format detection, as `stepdoctor diagnose` reads a file.
Imported ImportDetected(const std::string& json) {
  Imported out;
  auto src = OpenMaybeCompressed(std::string_view(json), "detected.json");
  out.status = ImportSource(*src, out.trace, {});
  return out;
}

const Timeline* FindTimeline(const Trace& t, const std::string& name) {
  for (const auto& tl : t.timelines)
    if (tl.name == name) return &tl;
  return nullptr;
}

// Three 100 ms training steps; in each the DataLoader takes 60 ms, then one matmul launches a
// 20 ms kernel. `host` and `gpu` are the pid values as JSON text.
std::string InputBoundSteps(const std::string& host, const std::string& gpu) {
  std::string ev;
  for (int k = 0; k < 3; ++k) {
    std::string base = std::to_string(k * 100'000);
    auto at = [&](int off) { return std::to_string(k * 100'000 + off); };
    std::string corr = std::to_string(k + 1);
    ev += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(k + 1) + R"(","pid":)" + host +
          R"(,"tid":1,"ts":)" + base + R"(,"dur":100000},)";
    ev += R"({"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":)" +
          host + R"(,"tid":1,"ts":)" + at(100) + R"(,"dur":60000},)";
    ev += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":)" + host + R"(,"tid":1,"ts":)" + at(60'200) +
          R"(,"dur":30000},)";
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + host + R"(,"tid":1,"ts":)" +
          at(60'300) + R"(,"dur":10,"args":{"correlation":)" + corr + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"volta_sgemm","pid":)" + gpu + R"(,"tid":7,"ts":)" + at(60'400) +
          R"(,"dur":20000,"args":{"correlation":)" + corr + "}},";
  }
  // Kineto's own bookkeeping: a span over the window and a global instant, on string pids.
  ev += R"J({"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":300000},)J";
  ev += R"({"ph":"i","s":"g","name":"Record Window End","pid":"","tid":"","ts":300000})";
  return R"({"schemaVersion":1,"traceEvents":[)" + ev + "]}";
}

// A string pid is a process name: the same trace must read the same with either.
TEST(ChromeImportEdges, StringPidsReadLikeNumericPids) {
  auto numeric = Import(InputBoundSteps("1234", "0"));
  auto named = Import(InputBoundSteps("\"Main\"", "\"GPU 0\""));
  ASSERT_TRUE(numeric.status.ok()) << numeric.status.message();
  ASSERT_TRUE(named.status.ok()) << named.status.message();

  const Timeline* main_thread = FindTimeline(named.trace, "thread 1");
  ASSERT_NE(main_thread, nullptr);
  EXPECT_EQ(main_thread->kind, TimelineKind::kHostThread);
  const Timeline* stream = FindTimeline(named.trace, "stream 7");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(named.trace.device(stream->device).index, 0);  // "GPU 0" names device 0
  // The profiler's bookkeeping lanes stay out of the analysis whatever their pid.
  const Timeline* spans = FindTimeline(named.trace, "thread PyTorch Profiler");
  ASSERT_NE(spans, nullptr);
  EXPECT_EQ(spans->kind, TimelineKind::kDerived);

  Report a = AnalyzeTrace(numeric.trace);
  Report b = AnalyzeTrace(named.trace);
  // The truth: 60 of every 100 ms wait on the DataLoader.
  EXPECT_EQ(a.verdict.bottleneck, Bottleneck::kInput) << a.verdict.summary;
  EXPECT_EQ(b.verdict.bottleneck, Bottleneck::kInput) << b.verdict.summary;
  EXPECT_GT(b.steps.count, 0);
  EXPECT_EQ(a.steps.count, b.steps.count);
  EXPECT_DOUBLE_EQ(a.steps.median_ms, b.steps.median_ms);
  ASSERT_EQ(a.breakdown.size(), b.breakdown.size());
  for (size_t i = 0; i < a.breakdown.size(); ++i) {
    EXPECT_EQ(a.breakdown[i].category, b.breakdown[i].category);
    EXPECT_DOUBLE_EQ(a.breakdown[i].ms_per_step, b.breakdown[i].ms_per_step) << a.breakdown[i].category;
  }
}

// A numeric pid or tid, however large, never names the same thread as a string one.
TEST(ChromeImportEdges, HugeNumericIdsDoNotCollideWithStringIds) {
  auto r = Import(R"({"traceEvents": [
    {"ph":"X","name":"a","pid":"Main","tid":"worker","ts":1,"dur":1},
    {"ph":"X","name":"b","pid":1152921504606846976,"tid":1152921504606846976,"ts":2,"dur":1},
    {"ph":"X","name":"c","pid":"Main","tid":1152921504606846977,"ts":3,"dur":1},
    {"ph":"X","name":"d","pid":1152921504606846976,"tid":"worker","ts":4,"dur":1}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.timelines.size(), 4u);
  for (const auto& tl : r.trace.timelines) EXPECT_EQ(tl.ev.size(), 1u) << tl.name;
  EXPECT_EQ(r.trace.workers[0].pid, 1152921504606846976);  // the numeric process, not "Main"
}

// Key order is free in JSON: traceEvents after a value far past the sniffed head still reads.
TEST(ChromeImportEdges, TraceEventsAfterALargeValue) {
  std::string big = "[";
  for (int i = 0; i < 4000; ++i) big += std::string(i ? "," : "") + "\"INFO: line " + std::to_string(i) + " {[\\\"\"";
  big += "]";
  ASSERT_GT(big.size(), 64u * 1024);
  const std::string events =
      R"("traceEvents": [{"ph":"X","name":"op","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X","name":"op2","pid":1,"tid":1,"ts":5,"dur":2}])";
  for (const std::string& json : {"{\"INFO\": " + big + ", " + events + "}",
                                  "{\"note\": \"" + std::string(200'000, 'x') + "\", " + events + "}"}) {
    auto r = ImportDetected(json);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.trace.EventCount(), 2u);
    EXPECT_TRUE(r.trace.diagnostics.empty());
    // Bounded memory: with a 4 KB window that may not grow past 16 KB the value is still
    // skipped, because it is scanned in pieces and never held.
    chrome::TokenizerOptions small;
    small.window_bytes = 4096;
    small.max_value_bytes = 16384;
    auto s = Import(json, small);
    ASSERT_TRUE(s.status.ok()) << s.status.message();
    EXPECT_EQ(s.trace.EventCount(), 2u);
  }
}

TEST(ChromeImportEdges, DetectionWalksTopLevelKeys) {
  std::string head = "{\"INFO\": [\"" + std::string(70'000, 'x');
  head.resize(64 * 1024);  // the sniffed head ends inside the first value: undecided
  EXPECT_EQ(DetectFormat(head, "t.json"), InputFormat::kChromeJson);
  // Every top-level key seen, none a trace's: other JSON.
  EXPECT_EQ(DetectFormat("{\"a\": [1, 2], \"b\": {\"c\": \"traceEvent\"}}", "x.json"), InputFormat::kJsonOther);
  // A JSON object with no traceEvents sent to the Chrome importer says it is not a trace.
  auto r = ImportDetected("{\"big\": \"" + std::string(70'000, 'x') + "\", \"other\": 1}");
  EXPECT_EQ(r.status.code(), ErrorCode::kUnknownFormat);
  EXPECT_NE(r.status.message().find("no traceEvents"), std::string::npos) << r.status.message();
}

// A value past the size cap is named as such, not as a truncated file.
TEST(ChromeImportEdges, OversizedValueIsNotCalledTruncated) {
  chrome::TokenizerOptions o;
  o.window_bytes = 256;
  o.max_value_bytes = 1024;
  std::string huge_name(4000, 'n');
  auto r = Import(R"({"traceEvents": [{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},
    {"ph":"X","name":")" + huge_name + R"(","pid":1,"tid":1,"ts":3,"dur":1}]})", o);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.EventCount(), 1u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kOversizedValue), 1u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTruncatedInput), 0u);

  auto first = Import(R"({"deviceProperties": [{"name": ")" + huge_name + R"("}], "traceEvents": []})", o);
  EXPECT_FALSE(first.status.ok());
  EXPECT_NE(first.status.message().find("size cap"), std::string::npos) << first.status.message();
  EXPECT_EQ(first.status.message().find("truncated"), std::string::npos) << first.status.message();
}

// Chrome's trace viewer closes an unfinished B at its thread's last timestamp; with negative
// timestamps that is below zero.
TEST(ChromeImportEdges, UnclosedBeginWithNegativeTimestamps) {
  auto r = Import(R"({"traceEvents": [
    {"name":"open","ph":"B","pid":1,"tid":1,"ts":-100},
    {"name":"x","ph":"X","pid":1,"tid":1,"ts":-90,"dur":10},
    {"name":"elsewhere","ph":"X","pid":1,"tid":2,"ts":500,"dur":10}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kUnclosedBegin), 1u);
  const Timeline* t = FindTimeline(r.trace, "thread 1");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->ev.size(), 2u);
  EXPECT_EQ(t->ev.start_ns[0], -100'000);
  EXPECT_EQ(t->ev.dur_ns[0], 20'000);  // -100 .. -80 µs, the end of "x"
}

// ts and dur read the same way: a number, or the same number quoted.
TEST(ChromeImportEdges, QuotedDurationReadsLikeQuotedTimestamp) {
  auto r = Import(R"({"traceEvents": [
    {"name":"a","ph":"X","pid":1,"tid":1,"ts":"10","dur":"12.5"},
    {"name":"b","ph":"X","pid":1,"tid":1,"ts":30,"dur":2.25}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const Timeline& t = r.trace.timelines[0];
  ASSERT_EQ(t.ev.size(), 2u);
  EXPECT_EQ(t.ev.start_ns[0], 10'000);
  EXPECT_EQ(t.ev.dur_ns[0], 12'500);
  EXPECT_EQ(t.ev.dur_ns[1], 2'250);
  EXPECT_TRUE(r.trace.diagnostics.empty());
}

// One invalid byte costs the byte, not the event: a step marker stays a step marker.
TEST(ChromeImportEdges, InvalidUtf8IsReplacedNotDropped) {
  auto r = Import("{\"traceEvents\": ["
                  "{\"name\":\"ProfilerStep#1\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,"
                  "\"cat\":\"user_annotation\",\"args\":{\"note\":\"bad \xff byte\"}},"
                  "{\"name\":\"op \xc3(\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
                  "{\"name\":\"fine\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5}]}");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const Timeline& t = r.trace.timelines[0];
  ASSERT_EQ(t.ev.size(), 3u);
  EXPECT_EQ(t.ev.kind[0], EventKind::kStepMarker);
  EXPECT_EQ(r.trace.str(t.ev.name[1]), "op \xEF\xBF\xBD(");
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kInvalidUtf8), 2u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
}

// A name or text argument past kMaxTextBytes is kept cut, on a whole UTF-8 sequence, and
// counted: it costs no copy of its full size (a 200 MB name had cost 400 MB on top of the file).
TEST(ChromeImportEdges, OverlongTextIsCutAndCounted) {
  // Two-byte characters after one ASCII byte: byte kMaxTextBytes falls inside a character.
  const std::string name = "k" + [] {
    std::string s;
    for (size_t i = 0; i < kMaxTextBytes; ++i) s += "\xC3\xA9";
    return s;
  }();
  const std::string arg(kMaxTextBytes + 1, 'a');
  const std::string fits(kMaxTextBytes, 'b');
  auto r = Import(R"({"traceEvents": [{"name":")" + name + R"(","ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"args":{"tf_op":")" +
                  arg + R"(","Collective name":")" + fits + R"("}}]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const Timeline& t = r.trace.timelines[0];
  ASSERT_EQ(t.ev.size(), 1u);
  const std::string_view kept = r.trace.str(t.ev.name[0]);
  EXPECT_EQ(kept.size(), kMaxTextBytes - 1);  // 'k' and whole two-byte characters only
  EXPECT_EQ(kept, std::string_view(name).substr(0, kMaxTextBytes - 1));
  const Arg* long_arg = t.FindArg(0, r.trace.strings.Find("tf_op"));
  const Arg* fits_arg = t.FindArg(0, r.trace.strings.Find("Collective name"));
  ASSERT_TRUE(long_arg && fits_arg);
  EXPECT_EQ(r.trace.str(long_arg->s).size(), kMaxTextBytes);
  EXPECT_EQ(r.trace.str(fits_arg->s), fits);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kLongTextCut), 2u);
}

// An event over 1 MiB whose args hold a huge array (deep nesting costs simdjson 4 bytes per
// bracket) is kept without that value, counted; the events around it and its other args stay.
TEST(ChromeImportEdges, LargeArrayInsideAnEventIsDroppedNotTheEvent) {
  const size_t depth = 600000;
  const std::string nested = std::string(depth, '[') + std::string(depth, ']');
  auto r = Import(R"({"traceEvents": [{"name":"before","ph":"X","pid":1,"tid":1,"ts":0,"dur":1},
    {"name":"big","ph":"X","pid":1,"tid":1,"ts":2,"dur":3,"args":{"x":)" + nested + R"(,"tf_op":"kept"}},
    {"name":"after","ph":"X","pid":1,"tid":1,"ts":6,"dur":1}]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const Timeline& t = r.trace.timelines[0];
  ASSERT_EQ(t.ev.size(), 3u);
  EXPECT_EQ(r.trace.str(t.ev.name[1]), "big");
  EXPECT_EQ(t.ev.dur_ns[1], 3000);
  const Arg* op = t.FindArg(1, r.trace.strings.Find("tf_op"));
  ASSERT_TRUE(op);
  EXPECT_EQ(r.trace.str(op->s), "kept");
  EXPECT_EQ(r.trace.str(t.ev.name[2]), "after");
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kLargeValueDropped), 1u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
}

// Times past the range are named as such (not as missing or unreadable), and ts + dur can
// never overflow.
TEST(ChromeImportEdges, TimesOutOfRangeAreBadNotMissing) {
  auto r = Import(R"({"traceEvents": [
    {"name":"far","ph":"X","pid":1,"tid":1,"ts":9000000000000000,"dur":1},
    {"name":"words","ph":"X","pid":1,"tid":1,"ts":"soon","dur":1},
    {"name":"sum","ph":"X","pid":1,"tid":1,"ts":4611686018427387,"dur":4611686018427387},
    {"name":"long","ph":"X","pid":1,"tid":1,"ts":1,"dur":9000000000000000},
    {"name":"nodur","ph":"X","pid":1,"tid":1,"ts":1,"dur":"never"},
    {"name":"ok","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const auto& d = r.trace.diagnostics;
  EXPECT_EQ(d.count(ImportIssue::kBadTimestamp), 1u);    // "soon"
  EXPECT_EQ(d.count(ImportIssue::kBadDuration), 1u);     // "never"
  EXPECT_EQ(d.count(ImportIssue::kTimeOutOfRange), 3u);  // far, sum, long
  EXPECT_EQ(d.count(ImportIssue::kMissingTimestamp), 0u);
  EXPECT_EQ(d.count(ImportIssue::kMalformedEvent), 0u);
  EXPECT_EQ(r.trace.EventCount(), 1u);
}

// Catapult: a counter's series is its name and id.
TEST(ChromeImportEdges, CounterIdSeparatesSeries) {
  auto r = Import(R"({"traceEvents": [
    {"name":"ctr","ph":"C","pid":1,"id":"1","ts":0,"args":{"value":10}},
    {"name":"ctr","ph":"C","pid":1,"id":"2","ts":0,"args":{"value":20}},
    {"name":"ctr","ph":"C","pid":1,"id":"1","ts":5,"args":{"value":11}},
    {"name":"ctr","ph":"C","pid":1,"ts":5,"args":{"value":99}},
    {"name":"x","ph":"X","pid":1,"tid":1,"ts":0,"dur":5}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.trace.counters.size(), 3u);
  EXPECT_EQ(r.trace.counters[0].name, "ctr[1]");
  EXPECT_EQ(r.trace.counters[0].value.size(), 2u);
  EXPECT_EQ(r.trace.counters[1].name, "ctr[2]");
  EXPECT_EQ(r.trace.counters[1].value[0], 20);
  EXPECT_EQ(r.trace.counters[2].name, "ctr");
}

// A Chrome trace whose events are all unreadable is said to be one, with the first reason.
TEST(ChromeImportEdges, AllEventsUnreadableNamesTheCause) {
  auto r = Import(R"({"traceEvents": [
    {"name":"a","ph":"X","pid":1,"tid":1,"ts":9000000000000000,"dur":1},
    {"name":"b","ph":"X","pid":1,"tid":1,"dur":1},
    42
  ]})");
  EXPECT_EQ(r.status.code(), ErrorCode::kCorruptInput);
  const std::string& m = r.status.message();
  EXPECT_NE(m.find("inline.json"), std::string::npos) << m;
  EXPECT_NE(m.find("none of its 3 events"), std::string::npos) << m;
  EXPECT_NE(m.find("a time outside the representable range"), std::string::npos) << m;
  EXPECT_EQ(m.find("not a Chrome trace"), std::string::npos) << m;

  auto broken = Import("{\"traceEvents\": [}");
  EXPECT_NE(broken.status.message().find("breaks at byte 17"), std::string::npos) << broken.status.message();
}

}  // namespace
}  // namespace stepdoctor
