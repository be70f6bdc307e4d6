// pack -> verify -> inspect on a generated folder: every file comes back as one Example with
// its bytes, label and path; the same seed gives the same shards; the manifest says what is there.
#include "stepdoctor/tfrecord/tfrecord_pack.h"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include "stepdoctor/importers/tfevents/crc32c.h"
#include "stepdoctor/importers/tfevents/tfrecord_reader.h"
#include "stepdoctor/tfrecord/example_wire.h"
#include "stepdoctor/tfrecord/tfrecord_inspect.h"
#include "stepdoctor/tfrecord/tfrecord_verify.h"
#include "temp_dir.h"
#include "test_util.h"

namespace stepdoctor::tfrecord {
namespace {

namespace fs = std::filesystem;

// cat/ 9 files, dog/ 6 files, of random sizes and bytes; returns relative path -> bytes.
std::map<std::string, std::string> MakeDataset(const testing::TempDir& dir) {
  std::map<std::string, std::string> files;
  std::mt19937 rng(1);
  for (int i = 0; i < 15; ++i) {
    std::string rel = std::string(i < 9 ? "cat" : "dog") + "/img" + std::to_string(i) + ".bin";
    std::string bytes(100 + rng() % 5000, '\0');
    for (auto& c : bytes) c = char(rng());
    dir.Write("in/" + rel, bytes);
    files[rel] = bytes;
  }
  return files;
}

// Every record of the shards in `out`: path -> {data, label}, in file order.
std::vector<std::tuple<std::string, std::string, int64_t>> ReadShards(const std::vector<std::string>& shards) {
  std::vector<std::tuple<std::string, std::string, int64_t>> out;
  for (const auto& path : shards) {
    auto opened = OpenTfRecordFile(path);
    EXPECT_TRUE(opened.ok()) << opened.message();
    if (!opened.ok()) continue;
    tfevents::TfRecordReader reader(*opened->source);
    std::string_view rec;
    for (;;) {
      auto next = reader.Read(&rec);
      if (!next.ok() || *next != tfevents::TfRecordReader::Next::kRecord) break;
      std::string data, rel;
      int64_t label = -2;
      EXPECT_TRUE(FindBytesFeature(rec, "data", &data));
      EXPECT_TRUE(FindBytesFeature(rec, "path", &rel));
      EXPECT_TRUE(FindInt64Feature(rec, "label", &label));
      out.emplace_back(rel, data, label);
    }
  }
  return out;
}

PackOptions Options(const testing::TempDir& dir, const std::string& out) {
  PackOptions o;
  o.input_dir = dir / "in";
  o.output_dir = dir / out;
  o.shards = 4;
  o.seed = 42;
  o.threads = 2;
  return o;
}

TEST(TfRecordPack, RoundTripPackVerifyInspect) {
  testing::TempDir dir("pack_roundtrip");
  auto files = MakeDataset(dir);
  auto r = PackFolder(Options(dir, "out"));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->records, 15u);
  ASSERT_EQ(r->shards.size(), 4u);
  EXPECT_EQ(r->labels.at("cat"), 0);
  EXPECT_EQ(r->labels.at("dog"), 1);
  EXPECT_EQ(r->label_counts.at(0), 9u);
  EXPECT_EQ(r->label_counts.at(1), 6u);
  EXPECT_TRUE(r->skipped.empty());

  std::vector<std::string> shards;
  for (const auto& s : r->shards) shards.push_back(dir / ("out/" + s.file));
  EXPECT_EQ(shards[0], dir / "out/data-00000-of-00004.tfrecord");
  for (const auto& v : VerifyFiles(shards, 2)) EXPECT_TRUE(v.ok()) << v.name;

  auto records = ReadShards(shards);
  ASSERT_EQ(records.size(), 15u);
  std::map<std::string, std::string> back;
  for (const auto& [rel, data, label] : records) {
    back[rel] = data;
    EXPECT_EQ(label, rel.rfind("cat/", 0) == 0 ? 0 : 1) << rel;
  }
  EXPECT_EQ(back, files);
  // Shuffled: the records are not in sorted path order.
  std::vector<std::string> order;
  for (const auto& rec : records) order.push_back(std::get<0>(rec));
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));

  InspectResult ir = InspectFiles(shards, {});
  EXPECT_EQ(ir.examples, 15u);
  ASSERT_EQ(ir.schema.size(), 3u);
  EXPECT_EQ(ir.schema.at("data").type, FeatureType::kBytes);
  EXPECT_EQ(ir.schema.at("label").type, FeatureType::kInt64);
  EXPECT_EQ(ir.schema.at("path").type, FeatureType::kBytes);
  EXPECT_EQ(ir.schema.at("label").min_len, 1u);

  // The manifest: counts, label map, and each shard's size and CRC-32C as on disk.
  simdjson::dom::parser parser;
  simdjson::dom::element m;
  ASSERT_EQ(parser.load(r->manifest_path).get(m), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(m["records"]), 15);
  EXPECT_EQ(int64_t(m["labels"]["dog"]), 1);
  size_t i = 0;
  for (simdjson::dom::element s : m["shards"].get_array()) {
    std::string bytes = testing::ReadFileOrDie(shards[i]);
    EXPECT_EQ(uint64_t(s["bytes"].get_int64().value()), bytes.size());
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", tfevents::Crc32c(bytes));
    EXPECT_EQ(std::string_view(s["crc32c"].get_string().value()), hex);
    ++i;
  }
  EXPECT_EQ(i, 4u);
  // No temporary files left behind.
  for (const auto& e : fs::directory_iterator(dir / "out"))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(TfRecordPack, TheSameSeedGivesTheSameShardsWhateverTheThreads) {
  testing::TempDir dir("pack_seed");
  MakeDataset(dir);
  auto a = Options(dir, "a");
  auto b = Options(dir, "b");
  b.threads = 1;
  auto c = Options(dir, "c");
  c.seed = 43;
  ASSERT_TRUE(PackFolder(a).ok());
  ASSERT_TRUE(PackFolder(b).ok());
  ASSERT_TRUE(PackFolder(c).ok());
  std::string f = "/data-00000-of-00004.tfrecord";
  EXPECT_EQ(testing::ReadFileOrDie(a.output_dir + f), testing::ReadFileOrDie(b.output_dir + f));
  EXPECT_NE(testing::ReadFileOrDie(a.output_dir + f), testing::ReadFileOrDie(c.output_dir + f));
}

TEST(TfRecordPack, ShardsOfAnEarlierPackAreNamedNotMixedIn) {
  testing::TempDir dir("pack_stale");
  MakeDataset(dir);
  auto o = Options(dir, "out");
  ASSERT_TRUE(PackFolder(o).ok());
  o.shards = 2;
  auto r = PackFolder(o);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->shards.size(), 2u);
  ASSERT_EQ(r->stale.size(), 4u);
  EXPECT_EQ(r->stale[0], "data-00000-of-00004.tfrecord");
  EXPECT_EQ(testing::ReadFileOrDie(r->manifest_path).find("of-00004"), std::string::npos);
}

TEST(TfRecordPack, ShardSizeAndCompression) {
  testing::TempDir dir("pack_size");
  auto files = MakeDataset(dir);
  uint64_t total = 0;
  for (const auto& [rel, bytes] : files) total += bytes.size();
  auto o = Options(dir, "out");
  o.shards = 0;
  o.shard_bytes = 8 * 1024;
  o.compression = Compression::kGzip;
  auto r = PackFolder(o);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_GE(r->shards.size(), total / (8 * 1024));
  std::vector<std::string> shards;
  for (const auto& s : r->shards) shards.push_back(dir / ("out/" + s.file));
  EXPECT_EQ(shards[0].substr(shards[0].size() - 3), ".gz");
  auto results = VerifyFiles(shards, 2);
  uint64_t records = 0;
  for (const auto& v : results) {
    EXPECT_TRUE(v.ok()) << v.name;
    EXPECT_EQ(v.compression, Compression::kGzip);
    records += v.records;
  }
  EXPECT_EQ(records, 15u);
  EXPECT_EQ(ReadShards(shards).size(), 15u);
}

TEST(TfRecordPack, LabelsFromACsvAndUnlistedFilesAreSkippedByName) {
  testing::TempDir dir("pack_csv");
  MakeDataset(dir);
  dir.Write("labels.csv", "path,label\ncat/img0.bin,5\ndog/img9.bin,7\n");
  auto o = Options(dir, "out");
  o.labels_csv = dir / "labels.csv";
  auto r = PackFolder(o);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->records, 2u);
  EXPECT_EQ(r->skipped.size(), 13u);
  EXPECT_NE(r->skipped[0].reason.find("not listed"), std::string::npos);
  EXPECT_EQ(r->labels.at("5"), 5);  // integer labels keep their values
  std::vector<std::string> shards;
  for (const auto& s : r->shards) shards.push_back(dir / ("out/" + s.file));
  std::map<std::string, int64_t> got;
  for (const auto& [rel, data, label] : ReadShards(shards)) got[rel] = label;
  EXPECT_EQ(got, (std::map<std::string, int64_t>{{"cat/img0.bin", 5}, {"dog/img9.bin", 7}}));
}

TEST(TfRecordPack, BadInputIsAnErrorAndLeavesNothingBehind) {
  testing::TempDir dir("pack_bad");
  auto missing = PackFolder(Options(dir, "out"));
  EXPECT_EQ(missing.code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.message().find(dir / "in"), std::string::npos);
  MakeDataset(dir);
  dir.Write("file", "x");
  auto o = Options(dir, "file/out");  // the output's parent is a file
  auto r = PackFolder(o);
  EXPECT_EQ(r.code(), ErrorCode::kIoError);
  auto csv = Options(dir, "out");
  csv.labels_csv = dir / "nope.csv";
  EXPECT_EQ(PackFolder(csv).code(), ErrorCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(TfRecordPack, AnUnreadableFileIsSkippedAndNamed) {
  testing::TempDir dir("pack_unreadable");
  MakeDataset(dir);
  if (::geteuid() != 0) {
    fs::permissions(dir / "in/cat/img3.bin", fs::perms::none);
  } else {
    // Root reads files whatever their mode: a regular file whose read fails (EIO at offset 0).
    fs::remove(dir / "in/cat/img3.bin");
    fs::create_symlink("/proc/self/mem", dir / "in/cat/img3.bin");
  }
  auto r = PackFolder(Options(dir, "out"));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->records, 14u);
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(r->skipped[0].path, "cat/img3.bin");
  EXPECT_NE(r->skipped[0].reason.find("cannot read"), std::string::npos) << r->skipped[0].reason;
  EXPECT_EQ(r->label_counts.at(0), 8u);
  // The manifest lists it too.
  EXPECT_NE(testing::ReadFileOrDie(r->manifest_path).find("cat/img3.bin"), std::string::npos);
}

TEST(TfRecordPack, CliPacksAndVerifies) {
  testing::TempDir dir("pack_cli");
  MakeDataset(dir);
  auto p = testing::RunCli("tfrecord pack " + (dir / "in") + " -o " + (dir / "out") + " --shards 2 --seed 3");
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("packed 15 files"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("labels: cat=0, dog=1"), std::string::npos) << p.out;
  auto v = testing::RunCli("tfrecord verify " + (dir / "out"));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("passed over 1 files"), std::string::npos) << v.out;  // manifest.json
  EXPECT_NE(v.out.find("verified 2 files: 15 records"), std::string::npos) << v.out;
  auto i = testing::RunCli("tfrecord inspect " + (dir / "out"));
  EXPECT_EQ(i.exit_code, 0) << i.out << i.err;
  EXPECT_NE(i.out.find("15 Example"), std::string::npos) << i.out;
  auto bad = testing::RunCli("tfrecord pack " + (dir / "in") + " -o " + (dir / "o2") + " --shard-size 12XB");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard-size"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace stepdoctor::tfrecord
