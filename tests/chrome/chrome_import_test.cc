// Inline inputs for each edge of the Chrome-trace importer.
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"

#include <gtest/gtest.h>

#include <random>
#include <zlib.h>

#include <string>

#include "stepdoctor/importers/chrome/chrome_event.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor {
namespace {

struct Imported {
  Status status;
  Trace trace;
};

Imported Import(const std::string& json, size_t window = 8u << 20, size_t batch = 512u << 10) {
  Imported out;
  auto src = MemorySource(json, "inline.json");
  chrome::TokenizerOptions o;
  o.window_bytes = window;
  o.batch_bytes = batch;
  out.status = ImportChromeJson(*src, out.trace, nullptr, o);
  return out;
}

const Timeline* FindTimeline(const Trace& t, const std::string& name) {
  for (const auto& tl : t.timelines)
    if (tl.name == name) return &tl;
  return nullptr;
}

const char* kKineto = R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "Tesla V100", "totalGlobalMem": 34079637504, "computeMajor": 7,
                        "computeMinor": 0, "numSms": 80}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 100, "tid": 100, "ts": 1000, "dur": 500},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": "100", "ts": 1010.5, "dur": 20.25,
     "args": {"External id": 5, "Input Dims": [[2, 3], [3, 4]]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1012, "dur": 5,
     "args": {"correlation": 77, "External id": 5}},
    {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1020, "dur": 100,
     "args": {"device": 0, "stream": 7, "correlation": 77}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 1130, "dur": 50,
     "args": {"device": 0, "stream": 7, "correlation": 78}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1200, "dur": 10,
     "args": {"device": 0, "stream": 7, "correlation": 79, "bytes": 4096}},
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 100,
     "tid": 100, "ts": 1300, "dur": 100},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": 1310,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512, "Total Allocated": 1024, "Total Reserved": 2048}},
    {"ph": "s", "id": 77, "pid": 100, "tid": 100, "ts": 1012, "cat": "ac2g", "name": "ac2g"},
    {"name": "thread_name", "ph": "M", "pid": 100, "tid": 100, "args": {"name": "python main"}},
    {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}
  ],
  "traceName": "x.json"
})J";

TEST(ChromeImport, KinetoEventsKindsDevicesAndArgs) {
  auto r = Import(kKineto);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const Trace& t = r.trace;
  EXPECT_EQ(t.format, "chrome-json (kineto)");
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].rank, 3);
  EXPECT_EQ(t.workers[0].world_size, 8);
  EXPECT_EQ(t.workers[0].backend, "nccl");
  EXPECT_EQ(t.EventCount(), 8u);  // 7 X + 1 memory instant; flows and metadata are not events

  const Timeline* host = FindTimeline(t, "python main");
  ASSERT_NE(host, nullptr) << "tid \"100\" and 100 must be one thread, named by its M event";
  EXPECT_EQ(host->kind, TimelineKind::kHostThread);
  EXPECT_EQ(host->ev.size(), 5u);
  // Sorted by start; µs with fractions become exact ns.
  EXPECT_EQ(host->ev.start_ns[0], 1'000'000);
  EXPECT_EQ(host->ev.kind[0], EventKind::kStepMarker);
  EXPECT_EQ(host->ev.start_ns[1], 1'010'500);
  EXPECT_EQ(host->ev.dur_ns[1], 20'250);
  EXPECT_EQ(host->ev.kind[1], EventKind::kFrameworkOp);
  EXPECT_EQ(host->ev.kind[2], EventKind::kRuntime);
  EXPECT_EQ(host->ev.corr[2], 77);
  EXPECT_EQ(host->ev.kind[3], EventKind::kInputWait);
  EXPECT_EQ(host->ev.kind[4], EventKind::kMemoryEvent);

  const Timeline* stream = FindTimeline(t, "stream 7");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->kind, TimelineKind::kDeviceStream);
  const Device& gpu = t.device(stream->device);
  EXPECT_EQ(gpu.kind, DeviceKind::kGpu);
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.name, "Tesla V100");
  EXPECT_EQ(gpu.sm_count, 80);
  EXPECT_EQ(gpu.compute_major, 7);
  EXPECT_EQ(gpu.memory_bytes, 34079637504);
  ASSERT_EQ(stream->ev.size(), 3u);
  EXPECT_EQ(stream->ev.kind[0], EventKind::kKernel);
  EXPECT_EQ(stream->ev.kind[1], EventKind::kCollective);
  EXPECT_EQ(stream->ev.kind[2], EventKind::kMemcpyH2D);
  bool found = false;
  StringId bytes = t.strings.Find("bytes", &found);
  ASSERT_TRUE(found);
  const Arg* a = stream->FindArg(2, bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->i, 4096);

  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters[0].name, "gpu0_memory_allocated_bytes");
  EXPECT_EQ(t.counters[0].value[0], 1024);
  EXPECT_TRUE(t.diagnostics.empty());
}

// Perfetto tests every place a chunk can split: run the same trace through tiny windows and
// batches so every event and every token straddles a refill somewhere.
TEST(ChromeImport, SameResultAtEveryWindowSize) {
  auto whole = Import(kKineto);
  ASSERT_TRUE(whole.status.ok());
  for (size_t window = 4; window <= 96; window += 3) {
    for (size_t batch : {size_t{1}, size_t{64}, size_t{1} << 20}) {
      auto r = Import(kKineto, window, batch);
      ASSERT_TRUE(r.status.ok()) << "window " << window << ": " << r.status.message();
      ASSERT_EQ(r.trace.EventCount(), whole.trace.EventCount()) << "window " << window << " batch " << batch;
      ASSERT_EQ(r.trace.workers[0].rank, 3);
      ASSERT_EQ(r.trace.counters.size(), 2u);
    }
  }
}

TEST(ChromeImport, BareArrayLegacyProfiler) {
  auto r = Import(R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 0, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
                      {"name": "aten::add", "ph": "X", "ts": 5, "dur": 3, "tid": 1, "pid": "CPU functions", "args": {}}])");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.format, "chrome-json (pytorch autograd profiler)");
  EXPECT_EQ(r.trace.EventCount(), 2u);
  EXPECT_EQ(r.trace.timelines[0].kind, TimelineKind::kHostThread);
}

TEST(ChromeImport, BeginEndPairingAndItsProblems) {
  auto r = Import(R"({"traceEvents": [
    {"name": "outer", "ph": "B", "pid": 1, "tid": 1, "ts": 10},
    {"name": "inner", "ph": "B", "pid": 1, "tid": 1, "ts": 20},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 30},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 40},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 50},
    {"name": "open", "ph": "B", "pid": 1, "tid": 2, "ts": 60},
    {"name": "x", "ph": "X", "pid": 1, "tid": 2, "ts": 61, "dur": 9}
  ]})");
  ASSERT_TRUE(r.status.ok());
  const Trace& t = r.trace;
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kUnmatchedEnd), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kUnclosedBegin), 1u);
  const Timeline& t1 = t.timelines[0];
  ASSERT_EQ(t1.ev.size(), 2u);
  EXPECT_EQ(t1.ev.dur_ns[0], 30'000);  // outer: 10..40
  EXPECT_EQ(t1.ev.dur_ns[1], 10'000);  // inner: 20..30
  const Timeline& t2 = t.timelines[1];
  EXPECT_EQ(t2.ev.dur_ns[0], 10'000);  // closed at its thread's last end (70)
}

TEST(ChromeImport, BadEventsAreCountedNotFatal) {
  auto r = Import(R"({"traceEvents": [
    {"name": "ok", "ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
    {"name": "neg", "ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": -2},
    {"name": "no ts", "ph": "X", "pid": 1, "tid": 1, "dur": 2},
    42,
    {"name": "bad \x01 control", "ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
    {"name": "no dur", "ph": "X", "pid": 1, "tid": 1, "ts": 5},
    {"name": "weird", "ph": "O", "pid": 1, "tid": 1, "ts": 5},
    {"name": "ctr", "ph": "C", "pid": 1, "ts": 5, "args": {"a": 1.5, "b": "nope"}},
    {"name": "ok2", "ph": "X", "pid": 1, "tid": 1, "ts": 9, "dur": 1}
  ]})");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const auto& d = r.trace.diagnostics;
  EXPECT_EQ(d.count(ImportIssue::kNegativeDuration), 1u);
  EXPECT_EQ(d.count(ImportIssue::kMissingTimestamp), 1u);
  EXPECT_EQ(d.count(ImportIssue::kMalformedEvent), 2u);  // the number, and the raw control byte
  EXPECT_EQ(d.count(ImportIssue::kMissingDuration), 1u);
  EXPECT_EQ(d.count(ImportIssue::kUnknownPhase), 1u);
  EXPECT_EQ(d.count(ImportIssue::kBadCounterValue), 1u);
  EXPECT_EQ(r.trace.EventCount(), 3u);  // ok, no dur (as an instant), ok2
  ASSERT_EQ(r.trace.counters.size(), 1u);
  EXPECT_EQ(r.trace.counters[0].name, "ctr.a");
}

TEST(ChromeImport, TruncatedFileKeepsWhatWasRead) {
  std::string json = kKineto;
  std::string cut = json.substr(0, json.find("\"ph\": \"i\"") + 4);  // inside the 8th event
  auto r = Import(cut);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.trace.EventCount(), 7u);
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(ChromeImport, TruncatedGzipKeepsWhatWasRead) {
  std::string json = "{\"traceEvents\": [";
  for (int i = 0; i < 2000; ++i)
    json += (i ? "," : "") + std::string("{\"name\": \"op") + std::to_string(i % 7) +
            "\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 10) + ", \"dur\": 5}";
  json += "]}";
  uLongf cap = compressBound(json.size()) + 64;
  std::string gz(cap, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(json.data());
  zs.avail_in = json.size();
  zs.next_out = reinterpret_cast<Bytef*>(gz.data());
  zs.avail_out = cap;
  ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  gz.resize(zs.total_out);
  deflateEnd(&zs);

  Trace whole;
  auto src = OpenMaybeCompressed(gz, "t.json.gz");
  ASSERT_TRUE(ImportSource(*src, whole, {}).ok());
  EXPECT_EQ(whole.EventCount(), 2000u);

  Trace part;
  auto cut = OpenMaybeCompressed(std::string_view(gz).substr(0, gz.size() / 2), "cut.json.gz");
  Status st = ImportSource(*cut, part, {});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GT(part.EventCount(), 100u);
  EXPECT_LT(part.EventCount(), 2000u);
  EXPECT_EQ(part.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(ChromeImport, NotATraceIsAnError) {
  Trace t;
  auto src = OpenMaybeCompressed(std::string_view("this is not json at all"), "garbage.bin");
  Status st = ImportSource(*src, t, {});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("garbage.bin"), std::string::npos);
  auto empty = Import("{\"traceEvents\": []}");
  EXPECT_EQ(empty.status.code(), ErrorCode::kEmptyInput);
}

TEST(ChromeImport, TensorFlowTraceUsesPlaneNames) {
  auto r = Import(R"J({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "/device:GPU:0"}},
    {"ph": "M", "pid": 0, "tid": 5, "name": "thread_name", "args": {"name": "Stream #5(Compute)"}},
    {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "/host:CPU"}},
    {"ph": "X", "pid": 0, "tid": 5, "ts": 10, "dur": 4, "name": "volta_sgemm"},
    {"ph": "X", "pid": 0, "tid": 5, "ts": 20, "dur": 4, "name": "MemcpyH2D"},
    {"ph": "X", "pid": 9, "tid": 1, "ts": 1, "dur": 30, "name": "IteratorGetNext"}
  ]})J");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.trace.format, "chrome-json (tensorflow)");
  const Timeline* s = FindTimeline(r.trace, "Stream #5(Compute)");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s->ev.kind[0], EventKind::kKernel);
  EXPECT_EQ(s->ev.kind[1], EventKind::kMemcpyH2D);
  const Timeline* h = FindTimeline(r.trace, "thread 1");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->ev.kind[0], EventKind::kInputWait);
}

TEST(ChromeImport, MicrosecondsToNanosecondsExactly) {
  int64_t ns = 0;
  ASSERT_EQ(chrome::ParseMicrosToNanos("1712195495519689.047", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, 1712195495519689047);
  ASSERT_EQ(chrome::ParseMicrosToNanos("2.5", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, 2500);
  ASSERT_EQ(chrome::ParseMicrosToNanos("1.23456", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, 1235);  // rounded at the nanosecond
  ASSERT_EQ(chrome::ParseMicrosToNanos("-7", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, -7000);
  ASSERT_EQ(chrome::ParseMicrosToNanos("1.5e3", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, 1'500'000);
  EXPECT_EQ(chrome::ParseMicrosToNanos("abc", &ns), TimeParse::kNotATime);
}

// Integer parts of every length (the parser reads eight digits at a time where eight remain),
// with digits that are not all decimal ("12345678x"), against the value built digit by digit.
TEST(ChromeImport, MicrosecondsOfEveryDigitCount) {
  std::mt19937_64 rng(9);
  for (int digits = 1; digits <= 16; ++digits)
    for (int round = 0; round < 200; ++round) {
      std::string text;
      int64_t want = 0;
      for (int d = 0; d < digits; ++d) {
        const int v = int(rng() % 10);
        text += char('0' + v);
        want = want * 10 + v;
      }
      const int frac = int(rng() % 4);
      std::string tail = ".";
      int64_t f = 0;
      for (int d = 0; d < frac; ++d) {
        const int v = int(rng() % 10);
        tail += char('0' + v);
        f = f * 10 + v;
      }
      for (int d = frac; d < 3; ++d) f *= 10;
      int64_t ns = -1;
      const std::string in = frac ? text + tail : text;
      const __int128 expect = __int128(want) * 1000 + f;  // 16 digits of us can pass int64 ns
      if (expect > kMaxTimeNs) {
        EXPECT_EQ(chrome::ParseMicrosToNanos(in, &ns), TimeParse::kOutOfRange) << in;
      } else {
        ASSERT_EQ(chrome::ParseMicrosToNanos(in, &ns), TimeParse::kOk) << in;
        EXPECT_EQ(ns, int64_t(expect)) << in;
      }
      EXPECT_EQ(chrome::ParseMicrosToNanos(text + "x", &ns), TimeParse::kNotATime) << text;
      std::string bad = text;
      bad[rng() % bad.size()] = char("/:a "[rng() % 3]);  // one byte just outside '0'..'9', or a letter
      if (bad != text) {
        EXPECT_NE(chrome::ParseMicrosToNanos(bad, &ns), TimeParse::kOk) << bad;
      }
    }
}

// Both sides of the time range (|t| < 2^62 ns), on the exact decimal path and the strtod one.
TEST(ChromeImport, MicrosecondsOutsideTheTimeRange) {
  int64_t ns = 0;
  ASSERT_EQ(chrome::ParseMicrosToNanos("4611686018427387.903", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, kMaxTimeNs);
  ASSERT_EQ(chrome::ParseMicrosToNanos("-4611686018427387.903", &ns), TimeParse::kOk);
  EXPECT_EQ(ns, -kMaxTimeNs);
  EXPECT_EQ(chrome::ParseMicrosToNanos("4611686018427387.904", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(chrome::ParseMicrosToNanos("-4611686018427387.904", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(chrome::ParseMicrosToNanos("9000000000000000", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(chrome::ParseMicrosToNanos("4.6e15", &ns), TimeParse::kOk);
  EXPECT_EQ(chrome::ParseMicrosToNanos("4.7e15", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(chrome::ParseMicrosToNanos("1e300", &ns), TimeParse::kOutOfRange);
  EXPECT_EQ(chrome::ParseMicrosToNanos("12345678901234567890123", &ns), TimeParse::kOutOfRange);
}

}  // namespace
}  // namespace stepdoctor

namespace stepdoctor {
namespace {

// Found by fuzzing: a structural byte where an event should start made the tokenizer spin.
TEST(ChromeImport, StructuralByteWhereAnEventShouldStartEnds) {
  for (const char* json : {"{\"traceEvents\": [}", "[}]", "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"a\"},}]}",
                           "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"a\"}, ]]"}) {
    Trace t;
    auto src = MemorySource(json, "bad.json");
    Status st = ImportChromeJson(*src, t);  // must return, whatever it says
    if (st.ok()) {
      EXPECT_LE(t.EventCount(), 1u) << json;
    }
  }
}

}  // namespace
}  // namespace stepdoctor
