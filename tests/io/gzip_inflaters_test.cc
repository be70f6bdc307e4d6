// The two gzip inflaters agree: libdeflate's whole-buffer path (InflateGzipWhole) gives the
// same bytes as zlib's streaming GzipSource and, through the importers, the same report, on
// corpus .gz files and on inline edges (several members, a cut file, a lying ISIZE). Where
// libdeflate declines, the zlib path takes the file and the result is zlib's.
#include "stepdoctor/io/whole_gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/render/render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

std::string Gzip(const std::string& data) {
  uLongf cap = compressBound(data.size()) + 64;
  std::string gz(cap, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = data.size();
  zs.next_out = reinterpret_cast<Bytef*>(gz.data());
  zs.avail_out = cap;
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  gz.resize(zs.total_out);
  deflateEnd(&zs);
  return gz;
}

std::string ZlibInflate(std::string_view gz) {
  auto src = GzipSource(MemorySource(gz, "t.gz"));
  auto all = ReadAll(*src, size_t(1) << 32);
  EXPECT_TRUE(all.ok()) << all.message();
  return all.ok() ? std::move(all).value() : std::string();
}

std::string Whole(std::string_view gz) {
  WholeInflate w = InflateGzipWhole(gz);
  EXPECT_TRUE(w.region) << (w.declined ? w.declined : "");
  return w.region ? std::string(w.region->data(), w.region->size()) : std::string();
}

std::string KinetoJson(int events, int64_t t0 = 0) {
  std::string json = "{\"schemaVersion\": 1, \"traceEvents\": [";
  for (int i = 0; i < events; ++i)
    json += (i ? "," : "") + std::string("{\"name\": \"op") + std::to_string(i % 7) +
            "\", \"ph\": \"X\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(t0 + i * 10) +
            ", \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i) + "}}";
  return json + "]}";
}

struct Outcome {
  Status status;
  std::string report;  // the JSON report, empty when the import failed
  size_t events = 0;
  size_t truncated = 0;
};

Outcome Diagnose(PeekableSource& src) {
  Outcome o;
  Trace t;
  o.status = ImportSource(src, t, {});
  if (!o.status.ok()) return o;
  o.events = t.EventCount();
  o.truncated = t.diagnostics.count(ImportIssue::kTruncatedInput);
  o.report = RenderJson(AnalyzeTrace(t), {});
  return o;
}

Outcome DiagnoseBytes(std::string_view gz, GzipInflater inflater) {
  auto src = OpenMaybeCompressed(gz, "t.json.gz", inflater);
  return Diagnose(*src);
}

void ExpectSame(const Outcome& zlib, const Outcome& ld) {
  EXPECT_EQ(zlib.status.code(), ld.status.code());
  EXPECT_EQ(zlib.status.message(), ld.status.message());
  EXPECT_EQ(zlib.events, ld.events);
  EXPECT_EQ(zlib.truncated, ld.truncated);
  EXPECT_TRUE(zlib.report == ld.report);
}

TEST(GzipInflaters, SameBytesAndReportOnInline) {
  std::string json = KinetoJson(3000);
  std::string gz = Gzip(json);
  EXPECT_TRUE(Whole(gz) == json);
  EXPECT_TRUE(ZlibInflate(gz) == json);
  Outcome z = DiagnoseBytes(gz, GzipInflater::kZlib), l = DiagnoseBytes(gz, GzipInflater::kLibdeflate);
  ASSERT_TRUE(z.status.ok()) << z.status.message();
  EXPECT_EQ(z.events, 3000u);
  ExpectSame(z, l);
}

TEST(GzipInflaters, SeveralMembersAreOneStream) {
  // Concatenated .gz files are one file (gzip(1) reads them so): the first member is larger
  // than the last one's ISIZE says, so the output block grows and that member is inflated again.
  std::string json = KinetoJson(4000);
  std::string a = json.substr(0, json.size() - 10), b = json.substr(json.size() - 10);
  std::string gz = Gzip(a) + Gzip(b);
  EXPECT_TRUE(ZlibInflate(gz) == json);
  EXPECT_TRUE(Whole(gz) == json);
  ExpectSame(DiagnoseBytes(gz, GzipInflater::kZlib), DiagnoseBytes(gz, GzipInflater::kLibdeflate));
  // And many small members.
  std::string many;
  for (size_t i = 0; i < json.size(); i += 1000) many += Gzip(json.substr(i, 1000));
  EXPECT_TRUE(Whole(many) == json);
}

TEST(GzipInflaters, TruncatedFileIsDeclinedAndZlibKeepsWhatWasRead) {
  std::string gz = Gzip(KinetoJson(3000));
  std::string cut = gz.substr(0, gz.size() / 2);
  WholeInflate w = InflateGzipWhole(cut);
  EXPECT_FALSE(w.region);
  Outcome z = DiagnoseBytes(cut, GzipInflater::kZlib), l = DiagnoseBytes(cut, GzipInflater::kLibdeflate);
  ASSERT_TRUE(z.status.ok()) << z.status.message();
  EXPECT_GT(z.events, 100u);
  EXPECT_LT(z.events, 3000u);
  EXPECT_EQ(z.truncated, 1u);
  ExpectSame(z, l);
  // Cut inside the trailer: every byte inflated, the check missing.
  std::string no_trailer = gz.substr(0, gz.size() - 3);
  EXPECT_FALSE(InflateGzipWhole(no_trailer).region);
  ExpectSame(DiagnoseBytes(no_trailer, GzipInflater::kZlib), DiagnoseBytes(no_trailer, GzipInflater::kLibdeflate));
}

TEST(GzipInflaters, CutBeforeAnyEventIsAOneLineErrorNamingTheFile) {
  std::string gz = Gzip(KinetoJson(3000));
  std::string dir = testing::MakeTempDir("gzcut");
  std::string path = dir + "/cut.json.gz";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_TRUE(f);
  std::fwrite(gz.data(), 1, 12, f);  // the header and two bytes of the first block
  std::fclose(f);
  for (const char* inflater : {"zlib", "libdeflate"}) {
    auto r = testing::RunCli("diagnose " + path, std::string("STEPDOCTOR_INFLATE=") + inflater);
    EXPECT_EQ(r.exit_code, 2) << inflater;
    EXPECT_NE(r.err.find(path), std::string::npos) << inflater << ": " << r.err;
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << inflater << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << inflater << ": " << r.err;
  }
}

TEST(GzipInflaters, LyingIsizeIsDeclined) {
  std::string json = KinetoJson(2000);
  std::string gz = Gzip(json);
  auto with_isize = [&](uint32_t v) {
    std::string s = gz;
    for (int i = 0; i < 4; ++i) s[s.size() - 4 + i] = char((v >> (8 * i)) & 0xff);
    return s;
  };
  // Too small (the block grows, then libdeflate's own ISIZE check fails), too large, and
  // past what DEFLATE can expand to: all go to zlib, which reports the damage.
  for (uint32_t v : {uint32_t(json.size() / 3), uint32_t(json.size() + 12345), uint32_t(0xFFFFFFF0u)}) {
    std::string lie = with_isize(v);
    EXPECT_FALSE(InflateGzipWhole(lie).region) << v;
    Outcome z = DiagnoseBytes(lie, GzipInflater::kZlib), l = DiagnoseBytes(lie, GzipInflater::kLibdeflate);
    ASSERT_TRUE(z.status.ok()) << z.status.message();
    EXPECT_EQ(z.events, 2000u);
    ExpectSame(z, l);
  }
  EXPECT_STREQ(InflateGzipWhole(with_isize(0xFFFFFFF0u)).declined, "ISIZE larger than DEFLATE can expand to");
}

TEST(GzipInflaters, PastTheCapStreams) {
  std::string json = KinetoJson(2000);
  std::string gz = Gzip(json);
  WholeInflate w = InflateGzipWhole(gz, json.size() / 2);
  EXPECT_FALSE(w.region);
  EXPECT_STREQ(w.declined, "larger than the whole-inflate cap");
  // Several members, each under the cap, together over it.
  std::string two = Gzip(json) + Gzip(json);
  EXPECT_FALSE(InflateGzipWhole(two, json.size() + json.size() / 2).region);
  EXPECT_TRUE(InflateGzipWhole(two, 2 * json.size()).region);
}

TEST(GzipInflaters, TrailingBytesAreDeclined) {
  std::string gz = Gzip(KinetoJson(500)) + std::string(100, '\0');
  EXPECT_FALSE(InflateGzipWhole(gz).region);
  ExpectSame(DiagnoseBytes(gz, GzipInflater::kZlib), DiagnoseBytes(gz, GzipInflater::kLibdeflate));
}

TEST(GzipInflaters, EmptyContent) {
  std::string gz = Gzip("");
  WholeInflate w = InflateGzipWhole(gz);
  ASSERT_TRUE(w.region);
  EXPECT_EQ(w.region->size(), 0u);
  ExpectSame(DiagnoseBytes(gz, GzipInflater::kZlib), DiagnoseBytes(gz, GzipInflater::kLibdeflate));
}

// Every corpus .gz: the same bytes, and through the importers (from the file, mapped) the same
// report whichever inflater reads it.
TEST(GzipInflaters, CorpusFilesGiveIdenticalBytesAndReports) {
  const char* kFiles[] = {
      "hta-testdata/df_index_resolver/df_index_resolver.json.gz",
      "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
      "wild/resnet50_autograd_api_num_workers_0.pt.trace.json.gz",
      "hta-testdata/nccl_parser_config/nccl_data.json.gz",
      "smdebug/tfprofiler_local_missing_metadata/framework/tensorflow/detailed_profiling/2020080513/000000000/"
      "plugins/profile/2020_08_05_13_37_44/ip-172-31-19-241.trace.json.gz",
  };
  int found = 0;
  for (const char* rel : kFiles) {
    std::string path = testing::CorpusPath(rel);
    if (path.empty()) continue;
    ++found;
    std::string gz = testing::ReadFileOrDie(path);
    EXPECT_TRUE(Whole(gz) == ZlibInflate(gz)) << rel;
    auto z = OpenMaybeCompressed(path, GzipInflater::kZlib);
    auto l = OpenMaybeCompressed(path, GzipInflater::kLibdeflate);
    ASSERT_TRUE(z.ok() && l.ok()) << rel;
    Outcome oz = Diagnose(**z), ol = Diagnose(**l);
    ASSERT_TRUE(oz.status.ok()) << rel << ": " << oz.status.message();
    EXPECT_GT(oz.events, 0u) << rel;
    ExpectSame(oz, ol);
    EXPECT_EQ((*z)->consumed(), gz.size()) << rel;
    EXPECT_EQ((*l)->consumed(), gz.size()) << rel;
  }
  if (found == 0) GTEST_SKIP() << "../shared/corpus not present";
}

}  // namespace
}  // namespace stepdoctor
