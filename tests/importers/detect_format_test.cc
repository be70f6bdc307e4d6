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

TEST(DetectFormat, JsonKinds) {
  EXPECT_EQ(DetectFormat(R"({"traceEvents": [)", "x"), InputFormat::kChromeJson);
  EXPECT_EQ(DetectFormat("\xEF\xBB\xBF  {\"schemaVersion\": 1, ", "x"), InputFormat::kChromeJson);  // BOM
  EXPECT_EQ(DetectFormat(R"([{"ph": "X", "ts": 1}])", "x"), InputFormat::kChromeJson);
  EXPECT_EQ(DetectFormat("[]", "x"), InputFormat::kChromeJson);  // empty: the importer says so
  EXPECT_EQ(DetectFormat("[1, 2]", "x"), InputFormat::kJsonOther);
  EXPECT_EQ(DetectFormat(R"({"a": 1, "b": [2]})", "x"), InputFormat::kJsonOther);
  EXPECT_EQ(DetectFormat("{\"t\": 1}\n{\"t\": 2}\n", "x"), InputFormat::kJsonLines);
  // One line of SageMaker's system monitor (a minute's file may hold one record): its lines, not
  // other JSON; an object of one line with other keys stays other JSON.
  EXPECT_EQ(DetectFormat(R"({"Type": "gpu", "Name":"gpu0", "Dimension": "GPUUtilization", "Value":90,"NodeId":"algo-2","Timestamp":1591748101})"
                         "\n", "1591748100.algo-2.json"),
            InputFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("{\"Type\": \"gpu\", \"Value\": 90}\n", "x"), InputFormat::kJsonOther);
  // Key order is free: a long first value cut by the head leaves it undecided, so the Chrome
  // importer (which can skip it) decides.
  EXPECT_EQ(DetectFormat(R"({"metadata": "long value cut)", "x"), InputFormat::kChromeJson);
}

TEST(DetectFormat, TextLogs) {
  EXPECT_EQ(DetectFormat("timestamp, utilization.gpu [%]\n2024/01/01 00:00:00.000, 50 %\n", "gpu.log"),
            InputFormat::kCsv);
  // nvidia-smi's table alone is a table log; with a --query-gpu CSV header below it, a job log
  // whose CSV the CSV importer reads.
  EXPECT_EQ(DetectFormat("+---+\n| NVIDIA-SMI 535.54  Driver Version: 535.54 |\n", "job.log"), InputFormat::kNvidiaSmiTable);
  EXPECT_EQ(DetectFormat("+---+\n| NVIDIA-SMI 535.54  Driver Version: 535.54 |\n+---+\n"
                         "+ nvidia-smi --query-gpu=index,utilization.gpu --format=csv -l 5\n"
                         "index, utilization.gpu [%]\n0, 5 %\n",
                         "job.log"),
            InputFormat::kCsv);
  EXPECT_EQ(DetectFormat("+ nvidia-smi --query-gpu=index,utilization.gpu --format=csv -l 5\n"
                         "+---+\n| NVIDIA-SMI 535.54  Driver Version: 535.54 |\n+---+\n",
                         "job.log"),
            InputFormat::kNvidiaSmiTable);  // the command line names the fields, but is no header
  EXPECT_EQ(DetectFormat("# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n", "g.log"),
            InputFormat::kNvidiaSmiDmon);
  EXPECT_EQ(DetectFormat("starting monitor\n#Date       Time        gpu    pwr     sm\n", "g.log"),
            InputFormat::kNvidiaSmiDmon);
  EXPECT_EQ(DetectFormat("# gpu is busy\n", "notes.txt"), InputFormat::kUnknown);  // no dmon column beside gpu
  EXPECT_EQ(DetectFormat("hello world\n", "notes.txt"), InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat("", "empty"), InputFormat::kUnknown);
}

// Protobufs that are not an XSpace: the first byte or the plane's name does not fit.
TEST(DetectFormat, OtherProtobufsAreNotXSpace) {
  EXPECT_EQ(DetectFormat(std::string("\x12\x24\x09\x81\xf4\x6c\x0b\x93", 8), "x.overview_page.pb"),
            InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat(std::string("\x0a\x05\x12\x03\x01\x02\x03", 7), "x.bin"), InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat(std::string("\x0a\x05\x0a\x03" "abc", 7), "x.bin"), InputFormat::kUnknown);
}

// A first plane of 123 bytes puts '{' after the leading 0x0a ('\n'): still an XSpace.
TEST(DetectFormat, XSpaceWhoseLengthByteLooksLikeJson) {
  std::string plane = "\x12\x09/host:CPU";
  plane += "\x1a" + std::string(1, char(123 - 2 - plane.size())) + std::string(123 - 2 - plane.size(), 'x');
  ASSERT_EQ(plane.size(), 123u);
  const std::string space = "\x0a{" + plane;
  EXPECT_EQ(DetectFormat(space, "renamed.bin"), InputFormat::kXSpace);
}

// An XSpace holding no planes has nothing to recognise it by but its name.
TEST(DetectFormat, XSpaceWithoutPlanesNeedsItsName) {
  const std::string hostnames_only("\x22\x04host", 6);  // field 4 (hostnames)
  EXPECT_EQ(DetectFormat(hostnames_only, "host.xplane.pb"), InputFormat::kXSpace);
  EXPECT_EQ(DetectFormat(hostnames_only, "host.bin"), InputFormat::kUnknown);
}

// An event file keeps its own detection: TFRecord framing, not an XSpace.
TEST(DetectFormat, EventFileStaysDistinctFromXSpace) {
  testing::EventFileWriter w;
  w.Scalar("loss", 1, 1000.0, 0.5f);
  const std::string bytes = w.bytes();
  EXPECT_EQ(DetectFormat(bytes, "events.out.tfevents.1.host"), InputFormat::kTfRecordEvents);
  EXPECT_EQ(DetectFormat(bytes, "renamed.bin"), InputFormat::kTfRecordEvents);
}

// A text log whose lines open with a bracketed time stamp is text, not a JSON array, so it is
// refused as a format not read rather than as JSON that is not a trace; JSON arrays stay JSON.
TEST(DetectFormat, BracketedTextLogIsNotJsonBothSides) {
  EXPECT_EQ(DetectFormat("[04-03-2021 @ 13:32:39] >  Temp: 58C  Utilization: 0%  Memory: 0/11019 MiB\n", "gpu_log.txt"),
            InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat("[2024-05-01 10:00:00] step 1 loss 0.5\n[2024-05-01 10:00:01] step 2\n", "train.log"),
            InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat("[{\"ph\": \"X\", \"ts\": 1}]", "trace.json"), InputFormat::kChromeJson);
  EXPECT_EQ(DetectFormat("[1, 2, 3]\n", "numbers.json"), InputFormat::kJsonOther);
  EXPECT_EQ(DetectFormat("[1,\n2]\n", "numbers.json"), InputFormat::kJsonOther);
  EXPECT_EQ(DetectFormat("[\n", "cut.json"), InputFormat::kChromeJson);  // empty: the importer says so
}

}  // namespace
}  // namespace stepdoctor
