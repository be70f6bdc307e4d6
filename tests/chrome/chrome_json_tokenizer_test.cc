// The Chrome-trace tokenizer on its own: both document forms, what it hands over (whole events
// as valid JSON arrays, kept top-level values raw), and every way the input can be odd: escapes
// and unicode in names, nested args, numbers as strings or past double range, empty arrays,
// truncation at every byte, reads split at every size, values larger than the window.
#include "stepdoctor/importers/chrome/chrome_json_tokenizer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace stepdoctor::chrome {
namespace {

// Records what the tokenizer hands over; keeps the top-level keys in `wanted`.
class RecordingSink final : public TokenizerSink {
 public:
  std::vector<std::string> wanted = {"deviceProperties", "displayTimeUnit", "big"};
  std::vector<std::string> batches;  // each "[...]" as handed over
  std::vector<size_t> counts;        // the count given with each
  std::map<std::string, std::string> fields;

  bool WantsTopLevelField(std::string_view key) const override {
    return std::find(wanted.begin(), wanted.end(), key) != wanted.end();
  }
  void OnTopLevelField(std::string_view key, std::string_view raw) override { fields[std::string(key)] = std::string(raw); }
  void OnEventBatch(const char* json, size_t len, size_t count) override {
    batches.emplace_back(json, len);
    counts.push_back(count);
  }

  // Every event of every batch, re-serialised minified by simdjson (so each batch must parse as
  // an array of exactly `count` elements).
  std::vector<std::string> Events() const {
    std::vector<std::string> out;
    simdjson::dom::parser parser;
    for (size_t b = 0; b < batches.size(); ++b) {
      simdjson::dom::element doc;
      EXPECT_EQ(parser.parse(batches[b]).get(doc), simdjson::SUCCESS) << batches[b];
      simdjson::dom::array arr;
      EXPECT_EQ(doc.get_array().get(arr), simdjson::SUCCESS) << batches[b];
      size_t n = 0;
      for (simdjson::dom::element e : arr) {
        out.push_back(simdjson::minify(e));
        ++n;
      }
      EXPECT_EQ(n, counts[b]) << batches[b];
    }
    return out;
  }
  // The "name" of each event (events without one are left out).
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    simdjson::dom::parser parser;
    for (const std::string& e : Events()) {
      simdjson::dom::element doc;
      std::string_view name;
      if (parser.parse(e).get(doc) == simdjson::SUCCESS && doc["name"].get(name) == simdjson::SUCCESS)
        out.emplace_back(name);
    }
    return out;
  }
};

// Hands out at most `chunk` bytes per Read, so a token can be cut anywhere.
class ChunkedSource final : public ByteSource {
 public:
  ChunkedSource(std::string data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  Result<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min({n, chunk_, data_.size() - at_});
    std::copy(data_.data() + at_, data_.data() + at_ + k, buf);
    at_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override { return at_; }
  uint64_t total() const override { return data_.size(); }

 private:
  std::string data_, name_ = "<chunked>";
  size_t chunk_, at_ = 0;
};

struct Tokenized {
  Status status;
  TokenizerStats stats;
  RecordingSink sink;
};

Tokenized Tokenize(const std::string& json, size_t chunk = SIZE_MAX, TokenizerOptions opts = {}) {
  Tokenized r;
  ChunkedSource src(json, chunk);
  r.status = TokenizeChromeJson(src, r.sink, &r.stats, opts);
  return r;
}

TEST(ChromeJsonTokenizer, ObjectFormAndBareArrayGiveTheSameEvents) {
  const std::string events = R"([{"name":"a","ph":"X","ts":1,"dur":2},{"name":"b","ph":"i","ts":3}])";
  Tokenized obj = Tokenize(R"({"traceEvents":)" + events + "}");
  Tokenized bare = Tokenize(events);
  ASSERT_TRUE(obj.status.ok()) << obj.status.message();
  ASSERT_TRUE(bare.status.ok()) << bare.status.message();
  EXPECT_TRUE(obj.stats.saw_trace_events);
  EXPECT_FALSE(obj.stats.bare_array);
  EXPECT_TRUE(bare.stats.bare_array);
  EXPECT_FALSE(bare.stats.saw_trace_events);
  for (const Tokenized* r : {&obj, &bare}) {
    EXPECT_EQ(r->stats.events, 2u);
    EXPECT_FALSE(r->stats.truncated || r->stats.broken || r->stats.trailing_garbage);
    EXPECT_EQ(r->sink.Names(), (std::vector<std::string>{"a", "b"}));
  }
  EXPECT_EQ(obj.sink.Events(), bare.sink.Events());
}

TEST(ChromeJsonTokenizer, OtherTopLevelKeysInAnyOrder) {
  // Kept keys arrive raw, before or after traceEvents; others are skipped, even one holding
  // text that looks like the events array.
  const std::string json = R"({"schemaVersion":1,"skipped":{"traceEvents":[{"name":"decoy"}],"s":"]}"},)"
                           R"("deviceProperties":[{"id":0,"name":"GPU \"0\""}],)"
                           R"("traceEvents":[{"name":"real"}],"displayTimeUnit":"ns"})";
  Tokenized r = Tokenize(json);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.sink.Names(), std::vector<std::string>{"real"});
  EXPECT_EQ(r.sink.fields["deviceProperties"], R"([{"id":0,"name":"GPU \"0\""}])");
  EXPECT_EQ(r.sink.fields["displayTimeUnit"], R"("ns")");
  EXPECT_EQ(r.sink.fields.count("skipped"), 0u);
  EXPECT_EQ(r.sink.fields.count("schemaVersion"), 0u);
  EXPECT_FALSE(r.stats.broken);
}

TEST(ChromeJsonTokenizer, EscapesInNamesAreKeptWhole) {
  // Quotes, brackets, braces, commas, backslashes and control escapes inside strings are not
  // structure; each event comes through byte for byte.
  const std::vector<std::string> names = {R"(say \"hi\")", R"(a]b}c[d{e,f)", R"(back\\slash\\)", R"(\/\b\f\n\r\t)",
                                          R"(ends with backslash \\)", R"(\"]},{\"name\":\"injected)"};
  std::string json = R"({"traceEvents":[)";
  for (size_t i = 0; i < names.size(); ++i) json += (i ? "," : "") + std::string(R"({"name":")") + names[i] + R"(","ph":"X"})";
  json += "]}";
  Tokenized r = Tokenize(json);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.stats.events, names.size());
  const std::vector<std::string> got = r.sink.Names();
  ASSERT_EQ(got.size(), names.size());
  EXPECT_EQ(got[0], "say \"hi\"");
  EXPECT_EQ(got[1], "a]b}c[d{e,f");
  EXPECT_EQ(got[2], "back\\slash\\");
  EXPECT_EQ(got[3], "/\b\f\n\r\t");
  EXPECT_EQ(got[4], "ends with backslash \\");
  EXPECT_EQ(got[5], "\"]},{\"name\":\"injected");
}

TEST(ChromeJsonTokenizer, UnicodeRawAndEscaped) {
  // Raw UTF-8 (2-, 3- and 4-byte), \u escapes including a surrogate pair, and a BOM before the
  // document.
  const std::string json = "\xEF\xBB\xBF" R"([{"name":"été ✓ 名前 😀"},{"name":"\u00e9t\u00e9 \u2713 \u540d\u524d \ud83d\ude00"}])";
  Tokenized r = Tokenize(json);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.stats.bare_array);
  const std::vector<std::string> got = r.sink.Names();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "été ✓ 名前 😀");
  EXPECT_EQ(got[1], got[0]);
}

// Bug: a first read ending inside the BOM (one or two bytes of it) made the file "not a JSON
// document": the BOM was only recognised when all three bytes were in the window.
TEST(ChromeJsonTokenizer, BomCutByTheFirstReadIsStillABom) {
  const std::string json = "\xEF\xBB\xBF" R"({"traceEvents":[{"name":"a"}]})";
  for (size_t chunk : {1, 2, 3, 4}) {
    Tokenized r = Tokenize(json, chunk);
    ASSERT_TRUE(r.status.ok()) << "chunk " << chunk << ": " << r.status.message();
    EXPECT_EQ(r.sink.Names(), std::vector<std::string>{"a"}) << "chunk " << chunk;
  }
  // Bytes that only start like a BOM are still no JSON, however they are read.
  for (size_t chunk : {1, 2, 64}) EXPECT_EQ(Tokenize("\xEF\xBBx[]", chunk).status.code(), ErrorCode::kUnknownFormat);
}

TEST(ChromeJsonTokenizer, NestedArgsAreOneEvent) {
  const std::string ev = R"({"name":"k","args":{"a":[1,{"b":[2,[3,[4]]]}],"c":{"d":{"e":"]}"}},"f":[]}})";
  Tokenized r = Tokenize("[" + ev + "," + ev + "]");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.stats.events, 2u);
  const std::vector<std::string> got = r.sink.Events();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], ev);
  EXPECT_EQ(got[1], ev);
}

TEST(ChromeJsonTokenizer, NumbersAsStringsAndHugeNumbersPassThrough) {
  // The tokenizer does not read numbers: strings stay strings, and numbers past int64 or double
  // range are cut as scalars like any other (the parser decides what to do with them).
  const std::string a = R"({"name":"s","ts":"1700000000123.456","dur":"12","pid":"7"})";
  const std::string b = R"({"name":"h","ts":123456789012345678901234567890,"dur":1e400,"id":-0.0e-999})";
  Tokenized r = Tokenize(R"({"traceEvents":[)" + a + "," + b + R"(],"displayTimeUnit":18446744073709551616})");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.stats.events, 2u);
  ASSERT_EQ(r.sink.batches.size(), 1u);
  EXPECT_EQ(r.sink.batches[0], "[" + a + "," + b + "]");
  EXPECT_EQ(r.sink.fields["displayTimeUnit"], "18446744073709551616");
  EXPECT_FALSE(r.stats.broken);
}

TEST(ChromeJsonTokenizer, EmptyArraysAndEmptyDocuments) {
  for (const char* json : {R"({"traceEvents":[]})", "[]", "[ \n ]", R"({"traceEvents":[ ],"x":[]})"}) {
    Tokenized r = Tokenize(json);
    EXPECT_TRUE(r.status.ok()) << json;
    EXPECT_EQ(r.stats.events, 0u) << json;
    EXPECT_TRUE(r.sink.batches.empty()) << json;
    EXPECT_FALSE(r.stats.truncated || r.stats.broken || r.stats.trailing_garbage) << json;
  }
  Tokenized obj = Tokenize("{}");
  EXPECT_TRUE(obj.status.ok());
  EXPECT_FALSE(obj.stats.saw_trace_events);
  // An array of empty objects: each is an event.
  Tokenized empties = Tokenize("[{},{} , {}]");
  EXPECT_EQ(empties.stats.events, 3u);
  EXPECT_EQ(empties.sink.Events(), (std::vector<std::string>{"{}", "{}", "{}"}));
  // Nothing at all is an empty file, not JSON cut short; a non-JSON first byte is no JSON.
  for (const char* json : {"", "  \n\t "}) EXPECT_EQ(Tokenize(json).status.code(), ErrorCode::kEmptyInput) << "'" << json << "'";
  EXPECT_EQ(Tokenize("hello").status.code(), ErrorCode::kUnknownFormat);
}

TEST(ChromeJsonTokenizer, TruncatedAtEveryByteKeepsTheWholeEventsBefore) {
  const std::string json = R"({"traceEvents":[{"name":"a","args":{"s":"x]}"}},{"name":"b\"c"},{"name":"d","ts":12345}]})";
  const Tokenized whole = Tokenize(json);
  ASSERT_EQ(whole.stats.events, 3u);
  const std::vector<std::string> all = whole.sink.Events();
  for (size_t cut = 1; cut < json.size(); ++cut) {
    Tokenized r = Tokenize(json.substr(0, cut));
    ASSERT_TRUE(r.status.ok()) << "cut at " << cut << ": " << r.status.message();
    EXPECT_TRUE(r.stats.truncated) << "cut at " << cut;
    EXPECT_FALSE(r.stats.broken) << "cut at " << cut;
    // What came through is a prefix of the events, each whole.
    const std::vector<std::string> got = r.sink.Events();
    ASSERT_LE(got.size(), all.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin())) << "cut at " << cut;
  }
  // Cut right after an element (a streamed array never closed, as Horovod writes it) vs inside one.
  Tokenized between = Tokenize(R"([{"name":"a"},{"name":"b"},)");
  EXPECT_TRUE(between.stats.truncated);
  EXPECT_TRUE(between.stats.ended_between_events);
  EXPECT_EQ(between.stats.events, 2u);
  Tokenized inside = Tokenize(R"([{"name":"a"},{"name":"b)");
  EXPECT_TRUE(inside.stats.truncated);
  EXPECT_FALSE(inside.stats.ended_between_events);
  EXPECT_EQ(inside.stats.events, 1u);
}

TEST(ChromeJsonTokenizer, ReadsSplitAtEverySizeGiveTheSameEvents) {
  std::string json = "\xEF\xBB\xBF" R"({"meta":{"k":[1,2,{"q":"\"]"}]},"deviceProperties":[{"name":"\u00e9"}],"traceEvents":[)";
  for (int i = 0; i < 20; ++i)
    json += (i ? "," : "") + std::string(R"({"name":"ev\\\")") + std::to_string(i) + R"(","args":{"a":[)" + std::to_string(i) + "]}}";
  json += R"(],"displayTimeUnit":"ms"})";
  const Tokenized whole = Tokenize(json);
  ASSERT_TRUE(whole.status.ok());
  ASSERT_EQ(whole.stats.events, 20u);
  const std::vector<std::string> all = whole.sink.Events();
  for (size_t chunk = 1; chunk <= 64; ++chunk) {
    // A small window too, so it slides and grows while a value is cut.
    TokenizerOptions o;
    o.window_bytes = 32;
    o.batch_bytes = 100;
    Tokenized r = Tokenize(json, chunk, o);
    ASSERT_TRUE(r.status.ok()) << "chunk " << chunk;
    EXPECT_EQ(r.sink.Events(), all) << "chunk " << chunk;
    EXPECT_EQ(r.sink.fields, whole.sink.fields) << "chunk " << chunk;
    EXPECT_FALSE(r.stats.truncated || r.stats.broken) << "chunk " << chunk;
    EXPECT_EQ(r.stats.bytes, json.size());
  }
}

TEST(ChromeJsonTokenizer, BatchesHoldWholeEventsUpToTheTargetSize) {
  std::string json = "[";
  for (int i = 0; i < 100; ++i) json += (i ? "," : "") + std::string(R"({"name":"e)") + std::to_string(i) + R"("})";
  json += "]";
  TokenizerOptions o;
  o.batch_bytes = 64;
  Tokenized r = Tokenize(json, SIZE_MAX, o);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.stats.events, 100u);
  EXPECT_GT(r.sink.batches.size(), 10u);  // about 12 bytes an event, 64 a batch
  const std::vector<std::string> names = r.sink.Names();
  ASSERT_EQ(names.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(names[size_t(i)], "e" + std::to_string(i));
}

TEST(ChromeJsonTokenizer, SkippedValueLargerThanTheWindowCostsNoGrowth) {
  // A 1 MB metadata value before traceEvents, with a 4 KB window and a 64 KB limit on one value:
  // skipped in pieces, so the events after it are still read.
  std::string big = R"({"blob":")" + std::string(1 << 20, 'x') + R"("})";
  Tokenized r = Tokenize(R"({"metadata":)" + big + R"(,"traceEvents":[{"name":"after"}]})", SIZE_MAX,
                   TokenizerOptions{4096, 1024, 64 << 10});
  ASSERT_TRUE(r.status.ok());
  EXPECT_FALSE(r.stats.value_too_large);
  EXPECT_EQ(r.sink.Names(), std::vector<std::string>{"after"});
  // A kept value (or one event) past the limit stops reading, and says so.
  RecordingSink keep;
  keep.wanted = {"metadata"};
  TokenizerStats st;
  const std::string json = R"({"metadata":)" + big + R"(,"traceEvents":[{"name":"after"}]})";
  ChunkedSource src(json, SIZE_MAX);
  ASSERT_TRUE(TokenizeChromeJson(src, keep, &st, TokenizerOptions{4096, 1024, 64 << 10}).ok());
  EXPECT_TRUE(st.value_too_large);
  EXPECT_TRUE(keep.batches.empty());
  Tokenized event = Tokenize("[" + big + "]", SIZE_MAX, TokenizerOptions{4096, 1024, 64 << 10});
  EXPECT_TRUE(event.stats.value_too_large);
  EXPECT_EQ(event.stats.events, 0u);
}

TEST(ChromeJsonTokenizer, BrokenStructureAndTrailingBytes) {
  // A structural byte where an event should start: what came before is kept, the place named.
  const std::string json = R"({"traceEvents":[{"name":"a"},}]})";
  Tokenized r = Tokenize(json);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.stats.events, 1u);
  EXPECT_TRUE(r.stats.broken);
  EXPECT_EQ(r.stats.broken_at, json.find('}', json.find("},") + 1));
  // A key without a colon.
  Tokenized nokey = Tokenize(R"({"traceEvents" [{"name":"a"}]})");
  EXPECT_TRUE(nokey.stats.broken);
  EXPECT_EQ(nokey.stats.events, 0u);
  // Bytes after the document.
  Tokenized trailing = Tokenize(R"([{"name":"a"}]  xyz)");
  EXPECT_EQ(trailing.stats.events, 1u);
  EXPECT_TRUE(trailing.stats.trailing_garbage);
  EXPECT_FALSE(Tokenize("[{\"name\":\"a\"}]  \n").stats.trailing_garbage);
}

}  // namespace
}  // namespace stepdoctor::chrome
