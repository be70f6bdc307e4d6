// The in-place XPlane decoder against libprotobuf's (the reference), Trace against Trace: on
// every .xplane.pb in ../shared/corpus, ../shared/fuzz-found, examples/ and fuzz/seeds/, on
// every one of them cut short and with bytes overwritten, and on XSpaces built here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "xplane/xplane_builder.h"
#include "xplane/xplane_decoder_compare.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;
using testing::ExpectDecodersAgree;
using testing::XSpaceBuilder;

// Every .xplane.pb under `root` (none when it is absent), sorted.
std::vector<std::string> XPlanesUnder(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string p = it->path().string();
    if (it->is_regular_file(ec) && p.size() > 10 && p.compare(p.size() - 10, 10, ".xplane.pb") == 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ProjectXPlanes() {
  std::vector<std::string> out = XPlanesUnder(testing::SourcePath("examples"));
  for (const std::string& p : XPlanesUnder(testing::SourcePath("fuzz/seeds/xplane"))) out.push_back(p);
  for (const std::string& p : XPlanesUnder(testing::SharedPath("fuzz-found"))) out.push_back(p);
  return out;
}

TEST(XPlaneDecoders, SameTraceOnEveryCorpusXPlane) {
  const std::string corpus = testing::CorpusPath("");
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpus not present: skipping the corpus xplanes";
  const std::vector<std::string> files = XPlanesUnder(corpus);
  if (files.empty()) GTEST_SKIP() << "no .xplane.pb in ../shared/corpus";
  for (const std::string& f : files) {
    const std::string bytes = testing::ReadFileOrDie(f);
    auto w = ExpectDecodersAgree(bytes, f, f);
    EXPECT_TRUE(w.status.ok()) << f;
    EXPECT_GT(w.trace.EventCount(), 0u) << f;
    testing::ExpectSameTrace(testing::ImportXSpaceFileWith(f, XPlaneDecoder::kWire), w, f + " mapped");
  }
}

TEST(XPlaneDecoders, SameTraceOnTheProjectsXPlanes) {
  const std::vector<std::string> files = ProjectXPlanes();
  ASSERT_FALSE(files.empty());  // examples/ and fuzz/seeds/ are in the repository
  for (const std::string& f : files) {
    auto w = ExpectDecodersAgree(testing::ReadFileOrDie(f), f, f);
    testing::ExpectSameTrace(testing::ImportXSpaceFileWith(f, XPlaneDecoder::kWire), w, f + " mapped");
    testing::ExpectSameTrace(testing::ImportXSpaceFileWith(f, XPlaneDecoder::kProtobuf), w, f + " mapped, libprotobuf");
  }
}

// A cut at each of `n` points spread over the file (and the first bytes, one by one): the
// same planes kept, the same truncation note, or the same one-line error.
void ExpectSameWhenCut(const std::string& bytes, const std::string& what, size_t n) {
  std::vector<size_t> cuts;
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 64); ++i) cuts.push_back(i);
  for (size_t k = 1; k <= n; ++k) cuts.push_back(bytes.size() * k / (n + 1));
  for (size_t c : cuts) ExpectDecodersAgree(std::string_view(bytes).substr(0, c), what + " cut at " + std::to_string(c));
}

// Bytes overwritten at random places (a fixed seed): each plane either decodes the same or is
// refused by both with the same note.
void ExpectSameWhenDamaged(const std::string& bytes, const std::string& what, int tries, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int t = 0; t < tries; ++t) {
    std::string b = bytes;
    const int hits = 1 + static_cast<int>(rng() % 4);
    for (int h = 0; h < hits; ++h) {
      const size_t at = rng() % b.size();
      switch (rng() % 4) {
        case 0: b[at] = static_cast<char>(rng()); break;
        case 1: b[at] = static_cast<char>(0x80 | rng()); break;  // a varint that goes on
        case 2: b[at] ^= static_cast<char>(1u << (rng() % 8)); break;
        default: b[at] = static_cast<char>((rng() % 16) << 3 | (rng() % 8)); break;  // a tag
      }
    }
    ExpectDecodersAgree(b, what + " damaged, try " + std::to_string(t));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A small XSpace with what the converter reads: device stats, metadata stats, correlation ids,
// refs, memory events, steps.
std::string SmallXSpace() {
  XSpaceBuilder b;
  b.Hostname("worker0");
  auto& host = b.AddPlane("/host:CPU");
  auto py = host.AddLine(7, "python", 1'000'000);
  py.Event("train_step", 0, 500, {{"step_num", int64_t{3}}});
  py.Event("cuLaunchKernel", 10, 5, {{"correlation_id", uint64_t{42}}});
  py.Event("Iterator::Batch", 20, 30, {{"id", int64_t{9}}, {"element_id", int64_t{2}}});
  py.Event("MemoryAllocation", 60, 0,
           {{"bytes_allocated", int64_t{1 << 20}}, {"allocator_name", std::string("GPU_0_bfc")}});
  py.Event("op", 70, 1, {{"tf_op", testing::RefValue{"MatMul:MatMul"}}, {"flops", 1.5}});
  auto& gpu = b.AddPlane("/device:GPU:0");
  gpu.Stat("core_count", int64_t{80}).Stat("device_vendor", std::string("Nvidia"));
  gpu.Stat("device_type_string", std::string("V100"));
  gpu.MetadataStat("gemm", "hlo_category", std::string("convolution"));
  auto s = gpu.AddLine(3, "Stream #7(Compute)", 1'000'100);
  s.Event("gemm", 0, 40, {{"correlation_id", int64_t{42}}, {"kernel_details", std::string("regs:32")}});
  s.Event("copy", 50, 4, {{"memcpy_details", std::string("kind:DtoH")}});
  auto steps = gpu.AddLine(1, "Steps", 1'000'000);
  steps.Event("3", 0, 500);
  b.AddPlane("/host:metadata");
  return b.Serialize();
}

// Files cut short and read mapped (fields handed out in place) read as the same bytes in memory.
TEST(XPlaneDecoders, MappedFilesCutShortReadAsInMemory) {
  const std::string bytes = SmallXSpace();
  const std::string dir = testing::MakeTempDir("xplane_cut");
  for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1, bytes.size()}) {
    const std::string path = dir + "/cut" + std::to_string(cut) + ".xplane.pb";
    {
      std::ofstream out(path, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(cut));
    }
    auto mem = testing::ImportXSpaceWith(std::string_view(bytes).substr(0, cut), path, XPlaneDecoder::kWire);
    testing::ExpectSameTrace(testing::ImportXSpaceFileWith(path, XPlaneDecoder::kWire), mem, "cut at " + std::to_string(cut));
  }
}

TEST(XPlaneDecoders, SameWhenCorpusFilesAreCut) {
  SD_CORPUS_OR_SKIP(path, "xprof-testdata/test_xplanes/tpu_inference_2.xplane.pb");
  ExpectSameWhenCut(testing::ReadFileOrDie(path), path, 24);
}

TEST(XPlaneDecoders, SameWhenCorpusFilesAreDamaged) {
  SD_CORPUS_OR_SKIP(path, "tracelens-testdata/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
  ExpectSameWhenDamaged(testing::ReadFileOrDie(path), path, 40, 13);
}

TEST(XPlaneDecoders, SameWhenProjectFilesAreCutOrDamaged) {
  for (const std::string& f : ProjectXPlanes()) {
    const std::string bytes = testing::ReadFileOrDie(f);
    if (bytes.empty()) continue;
    ExpectSameWhenCut(bytes, f, 16);
    ExpectSameWhenDamaged(bytes, f, 60, 7);
  }
}

TEST(XPlaneDecoders, SameOnABuiltXSpaceWholeCutAndDamaged) {
  const std::string bytes = SmallXSpace();
  auto w = ExpectDecodersAgree(bytes, "small xspace");
  ASSERT_TRUE(w.status.ok()) << w.status.message();
  EXPECT_GT(w.trace.EventCount(), 5u);
  EXPECT_EQ(w.trace.workers[0].hostname, "worker0");
  ExpectSameWhenCut(bytes, "small xspace", static_cast<size_t>(bytes.size()));  // every length
  ExpectSameWhenDamaged(bytes, "small xspace", 3000, 1);
}

TEST(XPlaneDecoders, DefaultIsTheWireDecoderAndTheEnvironmentPicksOne) {
  EXPECT_EQ(ResolveXPlaneDecoder(XPlaneDecoder::kProtobuf), XPlaneDecoder::kProtobuf);
  EXPECT_EQ(ResolveXPlaneDecoder(XPlaneDecoder::kWire), XPlaneDecoder::kWire);
  ::setenv("STEPDOCTOR_XPLANE_DECODER", "protobuf", 1);
  EXPECT_EQ(ResolveXPlaneDecoder(XPlaneDecoder::kAuto), XPlaneDecoder::kProtobuf);
  ::setenv("STEPDOCTOR_XPLANE_DECODER", "wire", 1);
  EXPECT_EQ(ResolveXPlaneDecoder(XPlaneDecoder::kAuto), XPlaneDecoder::kWire);
  ::unsetenv("STEPDOCTOR_XPLANE_DECODER");
  EXPECT_EQ(ResolveXPlaneDecoder(XPlaneDecoder::kAuto), XPlaneDecoder::kWire);
}

}  // namespace
}  // namespace stepdoctor
