// verify and inspect over TFRecord framing: damage found at the right byte offsets, compressed
// streams, truncation, and the public event files (the same framing) verifying clean.
#include "stepdoctor/tfrecord/tfrecord_verify.h"

#include <gtest/gtest.h>

#include "stepdoctor/tfrecord/example_wire.h"
#include "stepdoctor/tfrecord/tfrecord_file.h"
#include "stepdoctor/tfrecord/tfrecord_inspect.h"
#include "temp_dir.h"
#include "test_util.h"

namespace stepdoctor::tfrecord {
namespace {

// `n` Example records; offsets[i] is where record i's header starts.
std::string Records(int n, std::vector<uint64_t>* offsets) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    offsets->push_back(out.size());
    AppendRecord(ExampleBuilder().Bytes("data", std::string(100 + i, char('a' + i))).Int64("label", i).Take(), &out);
  }
  return out;
}

VerifyResult VerifyBytes(const std::string& bytes) {
  auto opened = OpenTfRecord(MemorySource(bytes));
  EXPECT_TRUE(opened.ok()) << opened.message();
  if (!opened.ok()) return {};
  VerifyResult r = VerifyStream(*opened->source);
  r.compression = opened->compression;
  return r;
}

TEST(TfRecordVerify, CleanStreamHasEveryRecord) {
  std::vector<uint64_t> off;
  auto r = VerifyBytes(Records(5, &off));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.records, 5u);
  EXPECT_EQ(r.compression, Compression::kNone);
}

TEST(TfRecordVerify, ReportsADataByteAndALengthChecksumAtTheirRecordsOffsets) {
  std::vector<uint64_t> off;
  std::string bytes = Records(6, &off);
  bytes[off[1] + 12 + 5] ^= 0x40;  // a byte of record 1's data
  bytes[off[3] + 8] ^= 0x01;       // record 3's length checksum
  auto r = VerifyBytes(bytes);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].problem, Problem::kDataCrc);
  EXPECT_EQ(r.problems[0].offset, off[1]);
  EXPECT_EQ(r.problems[1].problem, Problem::kLengthCrc);
  EXPECT_EQ(r.problems[1].offset, off[3]);
  // Records 0, 2, 4 and 5 are sound: reading resumed at record 4's header.
  EXPECT_EQ(r.records, 4u);
  EXPECT_EQ(r.skipped_bytes, off[4] - off[3]);
}

TEST(TfRecordVerify, ACutFileIsTruncatedAtItsLastRecord) {
  std::vector<uint64_t> off;
  std::string bytes = Records(3, &off);
  bytes.resize(off[2] + 20);
  auto r = VerifyBytes(bytes);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].problem, Problem::kTruncated);
  EXPECT_EQ(r.problems[0].offset, off[2]);
  EXPECT_EQ(r.records, 2u);
}

TEST(TfRecordVerify, GzipAndZlibStreamsAreDetectedAndRead) {
  std::vector<uint64_t> off;
  std::string plain = Records(4, &off);
  for (Compression c : {Compression::kGzip, Compression::kZlib}) {
    auto packed = CompressStream(plain, c);
    ASSERT_TRUE(packed.ok());
    auto r = VerifyBytes(*packed);
    EXPECT_EQ(r.compression, c) << CompressionName(c);
    EXPECT_TRUE(r.ok()) << CompressionName(c);
    EXPECT_EQ(r.records, 4u) << CompressionName(c);
    // A cut compressed file: the records before the cut are sound, the damage is reported.
    auto cut = VerifyBytes(packed->substr(0, packed->size() * 2 / 3));
    EXPECT_FALSE(cut.ok()) << CompressionName(c);
    ASSERT_FALSE(cut.problems.empty());
    EXPECT_EQ(cut.problems.back().problem, Problem::kCompressed) << CompressionName(c);
    EXPECT_LT(cut.records, 4u);
  }
}

TEST(TfRecordVerify, APlainRecordWhoseLengthLooksLikeAZlibHeaderIsPlain) {
  std::string out;
  AppendRecord(std::string(0x9c78, 'x'), &out);  // length bytes 78 9c: zlib's usual header
  ASSERT_EQ(static_cast<unsigned char>(out[0]), 0x78);
  auto c = DetectCompression(out.substr(0, 12));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, Compression::kNone);
  EXPECT_FALSE(DetectCompression("not a tfrecord file").ok());
}

TEST(TfRecordVerify, FilesVerifyInOrderWhateverTheThreadCount) {
  testing::TempDir dir("verify_threads");
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) {
    std::vector<uint64_t> off;
    std::string bytes = Records(i + 1, &off);
    if (i == 4) bytes[off[0] + 12] ^= 1;
    dir.Write("f" + std::to_string(i), bytes);
    paths.push_back(dir / ("f" + std::to_string(i)));
  }
  paths.push_back(dir / "missing");
  for (int threads : {1, 3}) {
    auto results = VerifyFiles(paths, threads);
    ASSERT_EQ(results.size(), 7u);
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(results[i].name, paths[i]);
      EXPECT_EQ(results[i].records, uint64_t(i == 4 ? i : i + 1));
      EXPECT_EQ(results[i].ok(), i != 4);
    }
    EXPECT_EQ(results[6].error.code(), ErrorCode::kNotFound);
  }
}

TEST(TfRecordVerify, CliExitsOneAndNamesTheOffsets) {
  testing::TempDir dir("verify_cli");
  std::vector<uint64_t> off;
  std::string bytes = Records(6, &off);
  bytes[off[1] + 12 + 5] ^= 0x40;
  bytes[off[3] + 8] ^= 0x01;
  dir.Write("bad.tfrecord", bytes);
  dir.Write("good.tfrecord", Records(2, &off));
  auto r = testing::RunCli("tfrecord verify " + dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("BAD  " + (dir / "bad.tfrecord")), std::string::npos) << r.out;
  off.clear();
  Records(6, &off);
  EXPECT_NE(r.out.find("offset " + std::to_string(off[1]) + ": data_crc"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("offset " + std::to_string(off[3]) + ": length_crc"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK   " + (dir / "good.tfrecord")), std::string::npos) << r.out;
  auto ok = testing::RunCli("tfrecord verify " + (dir / "good.tfrecord"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  auto missing = testing::RunCli("tfrecord verify " + (dir / "nope"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(dir / "nope"), std::string::npos) << missing.err;
}

TEST(TfRecordInspect, SchemaAndSizesOfExamples) {
  std::vector<uint64_t> off;
  std::string bytes = Records(4, &off);
  AppendRecord("not an example", &bytes);
  auto src = MemorySource(bytes);
  InspectResult r;
  InspectStream(*src, Compression::kNone, {}, &r);
  EXPECT_EQ(r.records, 5u);
  EXPECT_EQ(r.examples, 4u);
  EXPECT_EQ(r.not_examples, 1u);
  ASSERT_EQ(r.schema.size(), 2u);
  const FeatureSchema& data = r.schema.at("data");
  EXPECT_EQ(data.type, FeatureType::kBytes);
  EXPECT_EQ(data.records, 4u);
  EXPECT_EQ(data.min_bytes, 100u);
  EXPECT_EQ(data.max_bytes, 103u);
  EXPECT_EQ(r.schema.at("label").type, FeatureType::kInt64);
  uint64_t in_hist = 0;
  for (auto n : r.size_histogram) in_hist += n;
  EXPECT_EQ(in_hist, 5u);
  // The Examples are 133-136 bytes (data entry 114 + label entry 16, in 3 bytes of Example
  // framing): all in [128, 256), bucket 8; "not an example" (14 bytes) in [8, 16), bucket 4.
  EXPECT_EQ(r.min_record_bytes, 14u);
  EXPECT_EQ(r.max_record_bytes, 136u);
  ASSERT_EQ(r.size_histogram.size(), 9u);
  EXPECT_EQ(r.size_histogram[8], 4u);
  EXPECT_EQ(r.size_histogram[4], 1u);
}

TEST(TfRecordCorpus, KatibEventFilesVerifyClean) {
  for (const char* rel : {"katib-tfevents/logs/train/events.out.tfevents.1637681485.2d662933d616.19.0.v2",
                          "katib-tfevents/logs/test/events.out.tfevents.1637681485.2d662933d616.19.1.v2"}) {
    SD_CORPUS_OR_SKIP(path, rel);
    VerifyResult r = VerifyFile(path);
    EXPECT_TRUE(r.ok()) << path << ": " << r.error.message();
    EXPECT_EQ(r.compression, Compression::kNone);
    // SOURCES.md: 20 scalar values, one per event, plus the file_version event.
    EXPECT_EQ(r.records, 21u) << path;
    EXPECT_EQ(r.bytes, 1316u) << path;  // every byte of the file is framing and records
    // Event protos are not Examples: inspect must say so, not invent a schema.
    InspectResult ir = InspectFiles({path}, {});
    EXPECT_EQ(ir.not_examples, ir.records);
    EXPECT_TRUE(ir.schema.empty());
  }
}

TEST(TfRecordCorpus, Tf1SummaryFileVerifiesCleanWithItsRecordCount) {
  SD_CORPUS_OR_SKIP(path, "morvan-tf1-tutorial/tf15_tensorboard/logs/events.out.tfevents.1494075549.Morvan");
  VerifyResult r = VerifyFile(path);
  EXPECT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.records, 23u);  // SOURCES.md: 23 records
  EXPECT_EQ(r.bytes, 135292u);  // the file's size: nothing skipped
}

}  // namespace
}  // namespace stepdoctor::tfrecord
