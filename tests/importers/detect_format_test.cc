// DetectFormat: each format from its first bytes, whatever the file is called; names only break
// ties that bytes cannot (an XSpace holding no planes).
#include "stepdoctor/importers/detect_format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tfevents/event_file_writer.h"
#include "test_util.h"
#include "xplane/xplane_builder.h"

namespace stepdoctor {
namespace {

std::string Head(const std::string& path, size_t n = 64 * 1024) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), std::streamsize(n));
  s.resize(size_t(in.gcount()));
  return s;
}

std::string SmallXSpace() {
  testing::XSpaceBuilder b;
  b.AddPlane("/host:CPU").AddLine(1, "main").Event("f", 0, 1000);
  return b.Serialize();
}

TEST(DetectFormat, XSpaceByContentWhateverItsName) {
  const std::string bytes = SmallXSpace();
  EXPECT_EQ(DetectFormat(bytes, "host.xplane.pb"), InputFormat::kXSpace);
  EXPECT_EQ(DetectFormat(bytes, "renamed.bin"), InputFormat::kXSpace);
  EXPECT_EQ(DetectFormat(bytes, ""), InputFormat::kXSpace);
}

TEST(DetectFormat, RenamedXSpaceIsRead) {
  Trace t;
  InputFormat f = InputFormat::kUnknown;
  Status st = testing::ImportText(SmallXSpace(), "profile.data", &t, &f);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(f, InputFormat::kXSpace);
  EXPECT_EQ(t.EventCount(), 1u);
}

// Every XPlane file of the corpus, under its own name and renamed, and the profile plugin's
// other protobufs beside them (overview_page.pb, tensorflow_stats.pb), which are not XSpaces.
TEST(DetectFormat, CorpusProtobufsByContent) {
  SD_CORPUS_OR_SKIP(root, "tf-profiler-demo");
  const std::string corpus = std::filesystem::path(root).parent_path().string();
  int xplanes = 0, others = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(corpus)) {
    if (!e.is_regular_file() || e.path().extension() != ".pb") continue;
    const std::string name = e.path().filename().string();
    const std::string head = Head(e.path().string());
    if (name.ends_with(".xplane.pb")) {
      ++xplanes;
      EXPECT_EQ(DetectFormat(head, name), InputFormat::kXSpace) << name;
      EXPECT_EQ(DetectFormat(head, "renamed.bin"), InputFormat::kXSpace) << name;
    } else {
      ++others;
      EXPECT_NE(DetectFormat(head, name), InputFormat::kXSpace) << name;
    }
  }
  EXPECT_GE(xplanes, 3);
  EXPECT_GE(others, 1);
}

TEST(DetectFormat, RenamedCorpusXPlaneIsRead) {
  SD_CORPUS_OR_SKIP(path, "xprof-testdata/test_xplanes/tpu_inference_2.xplane.pb");
  auto dir = std::filesystem::temp_directory_path() / "stepdoctor_detect_format_test";
  std::filesystem::create_directories(dir);
  auto copy = dir / "tpu_inference_2.bin";
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  auto renamed = ImportPaths({copy.string()});
  auto original = ImportPaths({path});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(renamed.ok()) << renamed.message();
  ASSERT_TRUE(original.ok()) << original.message();
  EXPECT_GT(renamed->trace.EventCount(), 0u);
  EXPECT_EQ(renamed->trace.EventCount(), original->trace.EventCount());
}

// An event file keeps its own detection: TFRecord framing, not an XSpace.
TEST(DetectFormat, EventFileStaysDistinctFromXSpace) {
  testing::EventFileWriter w;
  w.Scalar("loss", 1, 1000.0, 0.5f);
  const std::string bytes = w.bytes();
  EXPECT_EQ(DetectFormat(bytes, "events.out.tfevents.1.host"), InputFormat::kTfRecordEvents);
  EXPECT_EQ(DetectFormat(bytes, "renamed.bin"), InputFormat::kTfRecordEvents);
}

}  // namespace
}  // namespace stepdoctor
