// A plain file is mapped and tokenized in place: the same trace and report as the copying
// path (bytes read into the tokenizer's window), at the edges where in-place parsing differs:
// a file ending on a page boundary, an array never closed (the last event ends at the file's
// last byte), a value past the size cap, and files that cannot be mapped.
#include "stepdoctor/io/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  std::string path = testing::MakeTempDir("mapped") + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(f);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

struct Outcome {
  Status status;
  size_t events = 0;
  std::string diagnostics;
  std::string report;
};

Outcome Finish(Status st, Trace& t) {
  Outcome o;
  o.status = st;
  if (!st.ok()) return o;
  o.events = t.EventCount();
  o.report = RenderJson(AnalyzeTrace(t), {});
  return o;
}

Outcome FromFile(const std::string& path) {
  Trace t;
  auto src = OpenMaybeCompressed(path);
  if (!src.ok()) return Finish(src.status(), t);
  return Finish(ImportSource(**src, t, {}), t);
}

Outcome FromMemory(const std::string& bytes, const std::string& name) {
  Trace t;
  auto src = OpenMaybeCompressed(bytes, name);
  return Finish(ImportSource(*src, t, {}), t);
}

void ExpectSame(const Outcome& a, const Outcome& b) {
  EXPECT_EQ(a.status.code(), b.status.code());
  EXPECT_EQ(a.events, b.events);
  EXPECT_TRUE(a.report == b.report);
}

std::string Events(int n, bool close) {
  std::string s = "[";
  for (int i = 0; i < n; ++i)
    s += (i ? ",\n" : "\n") + std::string("{\"name\": \"allreduce\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": ") +
         std::to_string(i * 100) + ", \"dur\": 50}";
  return close ? s + "\n]\n" : s;
}

TEST(MappedFile, PlainFileReadInPlaceMatchesTheCopyingPath) {
  std::string json = Events(5000, true);
  std::string path = WriteTemp("t.json", json);
  auto mapped = MappedRegion::MapFile(path);
  ASSERT_TRUE(mapped.ok());
  ASSERT_TRUE(*mapped);
  EXPECT_TRUE(std::string((*mapped)->data(), (*mapped)->size()) == json);
  for (size_t i = 0; i < kMapPadding; ++i) ASSERT_EQ((*mapped)->data()[json.size() + i], 0) << i;
  Outcome f = FromFile(path), m = FromMemory(json, path);
  ASSERT_TRUE(f.status.ok()) << f.status.message();
  EXPECT_EQ(f.events, 5000u);
  ExpectSame(f, m);
  // The file is unchanged by the in-place parse (its bytes are borrowed and restored privately).
  EXPECT_TRUE(testing::ReadFileOrDie(path) == json);
}

TEST(MappedFile, EndsOnAPageBoundaryAndArrayNeverClosed) {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  // An unclosed array (as Horovod streams it) padded with spaces inside to end exactly on a page.
  std::string json = Events(300, false);
  std::string last = "{\"name\": \"x\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": 999999, \"dur\": 1}";
  size_t target = ((json.size() + last.size() + 2) / page + 1) * page;
  json += "," + std::string(target - json.size() - last.size() - 1, ' ') + last;
  ASSERT_EQ(json.size() % page, 0u);
  std::string path = WriteTemp("horovod_timeline.json", json);
  Outcome f = FromFile(path), m = FromMemory(json, path);
  ASSERT_TRUE(f.status.ok()) << f.status.message();
  EXPECT_EQ(f.events, 301u);
  ExpectSame(f, m);
}

TEST(MappedFile, CutFileMatchesTheCopyingPath) {
  std::string json = Events(1000, true);
  std::string cut = json.substr(0, json.size() / 2 + 7);
  std::string path = WriteTemp("cut.json", cut);
  Outcome f = FromFile(path), m = FromMemory(cut, path);
  ASSERT_TRUE(f.status.ok()) << f.status.message();
  ExpectSame(f, m);
}

TEST(MappedFile, OneEventPastTheCapStopsReading) {
  // In place the window never fills, so the value cap is applied to each event instead.
  std::string json = "{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},"
                     "{\"name\": \"" + std::string(3000, 'b') + "\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}]}";
  std::string path = WriteTemp("big.json", json);
  chrome::TokenizerOptions o;
  o.window_bytes = 1024;
  o.max_value_bytes = 2048;
  for (bool in_place : {true, false}) {
    Trace t;
    ChromeImportStats st;
    std::unique_ptr<PeekableSource> src;
    if (in_place) {
      auto s = OpenMaybeCompressed(path);
      ASSERT_TRUE(s.ok());
      src = std::move(s).value();
    } else {
      src = OpenMaybeCompressed(json, path);
    }
    ASSERT_TRUE(ImportChromeJson(*src, t, &st, o).ok()) << in_place;
    EXPECT_EQ(st.events, 1u) << in_place;
  }
}

TEST(MappedFile, WhatCannotBeMappedIsReadOrNamed) {
  auto missing = MappedRegion::MapFile("/nonexistent/x.json");
  EXPECT_EQ(missing.code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.message().find("/nonexistent/x.json"), std::string::npos);
  std::string empty = WriteTemp("empty.json", "");
  auto e = MappedRegion::MapFile(empty);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(*e);  // read instead, which says the file is empty
  Outcome f = FromFile(empty);
  EXPECT_EQ(f.status.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(f.status.message().find(empty), std::string::npos);
  auto dir = OpenMaybeCompressed(testing::MakeTempDir("mapdir"));
  EXPECT_FALSE(dir.ok());
}

TEST(MappedFile, AnonymousRegionGrowsAndReleases) {
  auto r = MappedRegion::Anonymous(100);
  ASSERT_TRUE(r);
  std::memset(r->data(), 'a', 100);
  ASSERT_TRUE(r->Resize(64u << 20));
  EXPECT_EQ(r->data()[99], 'a');
  EXPECT_EQ(r->data()[100], 0);
  std::memset(r->data(), 'b', r->size());
  r->ReleaseBefore(r->size());
  ASSERT_TRUE(r->Resize(10));
  EXPECT_EQ(r->size(), 10u);
  for (size_t i = 10; i < 10 + kMapPadding; ++i) ASSERT_EQ(r->data()[i], 0) << i;
}

}  // namespace
}  // namespace stepdoctor
