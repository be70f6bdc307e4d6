#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"

#include <gtest/gtest.h>

#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/tfevents/crc32c.h"
#include "stepdoctor/importers/tfevents/tfrecord_reader.h"
#include "test_util.h"
#include "tfevents/event_file_writer.h"

namespace stepdoctor {
namespace {

using testing::EventFileWriter;

Trace ImportEvents(const std::string& bytes, Status* st = nullptr,
                   const std::string& name = "/logs/train/events.out.tfevents.1.host") {
  Trace t;
  auto src = MemorySource(bytes, name);
  Status s = ImportTfEvents(*src, t);
  if (st) *st = s;
  else EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

const ScalarSeries* Find(const Trace& t, std::string_view run, std::string_view tag) {
  for (const auto& s : t.scalars)
    if (s.run == run && s.tag == tag) return &s;
  return nullptr;
}

TEST(TfEventsCrc, KnownVectorsAndBothPaths) {
  EXPECT_EQ(tfevents::Crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(tfevents::Crc32cPortable("123456789"), 0xe3069283u);
  EXPECT_EQ(tfevents::Crc32c(std::string(32, '\0')), 0x8a9136aau);
  std::string s;
  for (int i = 0; i < 1000; ++i) s.push_back(static_cast<char>(i * 7));
  for (size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 1000u})
    EXPECT_EQ(tfevents::Crc32c(s.substr(0, n)), tfevents::Crc32cPortable(s.substr(0, n))) << n;
  EXPECT_EQ(tfevents::Crc32c(s.substr(500), tfevents::Crc32c(s.substr(0, 500))), tfevents::Crc32c(s));
}

// Combining the CRCs of two pieces gives the CRC of the whole, at every split (pack's file checksum).
TEST(TfEventsCrc, CombineEqualsOnePass) {
  std::string s;
  for (int i = 0; i < 70000; ++i) s.push_back(static_cast<char>(i * 131 + (i >> 7)));
  for (size_t cut : {0u, 1u, 12u, 999u, 4096u, 65536u, 69999u, 70000u}) {
    std::string_view a(s.data(), cut), b(s.data() + cut, s.size() - cut);
    EXPECT_EQ(tfevents::Crc32cCombine(tfevents::Crc32c(a), tfevents::Crc32c(b), b.size()), tfevents::Crc32c(s)) << cut;
  }
}

TEST(TfEventsImport, Tf1AndTf2Scalars) {
  EventFileWriter w;
  w.Scalar("loss", 10, 100.0, 0.5f).Scalar("loss", 20, 101.0, 0.25f);
  w.TensorScalar("epoch_accuracy", 1, 102.0, 0.75f, true).TensorScalar("epoch_accuracy", 2, 103.0, 0.875f, false);
  w.Histogram("dense/kernel", 1, 104.0);
  Trace t = ImportEvents(w.bytes());
  ASSERT_EQ(t.scalars.size(), 2u);
  const ScalarSeries* loss = Find(t, "/logs/train", "loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->step, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(loss->value, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(loss->wall_time_s[1], 101.0);
  const ScalarSeries* acc = Find(t, "/logs/train", "epoch_accuracy");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->value, (std::vector<double>{0.75, 0.875}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kUnsupportedContent), 1u);  // the histogram, counted
  NormalizeScalarRuns(t);
  EXPECT_EQ(t.scalars[0].run, "train");  // one folder keeps its own name
}

TEST(TfEventsImport, CorruptRecordIsReportedWithOffsetAndReadingGoesOn) {
  EventFileWriter w;
  w.Scalar("loss", 1, 1.0, 1.0f);
  size_t bad_at = w.bytes().size();
  w.Scalar("loss", 2, 2.0, 2.0f).Scalar("loss", 3, 3.0, 3.0f);
  std::string bytes = w.bytes();
  bytes[bad_at + 14] ^= 0x40;  // a byte of the second record's data: its data CRC fails
  Trace t = ImportEvents(bytes);
  ASSERT_EQ(t.scalars.size(), 1u);
  EXPECT_EQ(t.scalars[0].step, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(t.diagnostics.count(ImportIssue::kCorruptRecord), 1u);
  EXPECT_NE(t.diagnostics.notes()[0].second.find("byte " + std::to_string(bad_at)), std::string::npos)
      << t.diagnostics.notes()[0].second;

  // A damaged length: the reader scans for the next valid header.
  bytes = w.bytes();
  bytes[bad_at + 2] ^= 0x01;
  Trace t2 = ImportEvents(bytes);
  ASSERT_EQ(t2.scalars.size(), 1u);
  EXPECT_EQ(t2.scalars[0].step, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t2.diagnostics.count(ImportIssue::kCorruptRecord), 1u);

  // Garbage between records and a cut tail.
  EventFileWriter g;
  g.Scalar("loss", 1, 1.0, 1.0f).Raw("\x01\x02garbage!garbage!garbage!").Scalar("loss", 2, 2.0, 2.0f);
  std::string tail = g.bytes() + testing::FrameRecord("xxxxxxxxxxxxxxxx").substr(0, 20);
  Trace t3 = ImportEvents(tail);
  ASSERT_EQ(t3.scalars.size(), 1u);
  EXPECT_EQ(t3.scalars[0].step.size(), 2u);
  EXPECT_EQ(t3.diagnostics.count(ImportIssue::kCorruptRecord), 1u);
  EXPECT_EQ(t3.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(TfEventsImport, GarbageNeverCrashes) {
  EventFileWriter w;
  for (int i = 0; i < 20; ++i) w.TensorScalar("loss", i, i, 1.0f / (i + 1), i == 0);
  uint32_t seed = 7;
  for (int round = 0; round < 300; ++round) {
    std::string bad = w.bytes();
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1664525u + 1013904223u;
      bad[seed % bad.size()] = static_cast<char>(seed >> 24);
    }
    Status st;
    Trace t = ImportEvents(bad, &st);
    if (st.ok()) {
      EXPECT_LE(t.scalars.empty() ? 0 : t.scalars[0].value.size(), 20u);
    }
  }
}

TEST(TfEventsImport, NormalizeRunsToTheirCommonAncestor) {
  Trace t;
  for (std::string run : {"/a/logs/train", "/a/logs/validation", "/a/logs/exp2/train"}) {
    ScalarSeries s;
    s.run = run;
    s.tag = "loss";
    t.scalars.push_back(s);
  }
  NormalizeScalarRuns(t);
  EXPECT_EQ(t.scalars[0].run, "train");
  EXPECT_EQ(t.scalars[1].run, "validation");
  EXPECT_EQ(t.scalars[2].run, "exp2/train");
  NormalizeScalarRuns(t);  // idempotent
  EXPECT_EQ(t.scalars[2].run, "exp2/train");
}

TEST(TfEventsCorpus, Tf1MorvanTutorial) {
  SD_CORPUS_OR_SKIP(path, "morvan-tf1-tutorial/tf15_tensorboard/logs/events.out.tfevents.1494075549.Morvan");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  Trace& t = r->trace;
  NormalizeScalarRuns(t);
  ASSERT_EQ(t.scalars.size(), 1u);
  const ScalarSeries& loss = t.scalars[0];
  EXPECT_EQ(loss.run, "logs");
  EXPECT_EQ(loss.tag, "loss/loss");  // tf.summary.scalar("loss") inside name_scope("loss")
  ASSERT_EQ(loss.value.size(), 20u);
  EXPECT_EQ(loss.step.front(), 0);
  EXPECT_EQ(loss.step[1], 50);
  EXPECT_EQ(loss.step.back(), 950);
  EXPECT_NEAR(loss.value.front(), 0.260776788, 1e-8);
  EXPECT_NEAR(loss.value[1], 0.0122271152, 1e-9);
  EXPECT_NEAR(loss.value.back(), 0.00362871657, 1e-10);
  EXPECT_NEAR(loss.wall_time_s.front(), 1494075549.974715, 1e-5);
  ASSERT_EQ(t.diagnostics.notes().size(), 1u);
  EXPECT_NE(t.diagnostics.notes()[0].second.find("120 histogram values"), std::string::npos);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kCorruptRecord), 0u);
}

TEST(TfEventsCorpus, Tf2KatibTrainAndTest) {
  SD_CORPUS_OR_SKIP(path, "katib-tfevents/logs");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  Trace& t = r->trace;
  NormalizeScalarRuns(t);
  ASSERT_EQ(t.scalars.size(), 4u);
  const ScalarSeries* tl = Find(t, "train", "loss");
  const ScalarSeries* ta = Find(t, "train", "accuracy");
  const ScalarSeries* vl = Find(t, "test", "loss");
  const ScalarSeries* va = Find(t, "test", "accuracy");
  ASSERT_TRUE(tl && ta && vl && va);
  EXPECT_EQ(tl->step, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_NEAR(tl->value.front(), 0.20479995, 1e-7);
  EXPECT_NEAR(tl->value.back(), 0.0360666476, 1e-8);
  EXPECT_NEAR(ta->value.front(), 0.940400004, 1e-7);
  EXPECT_NEAR(ta->value.back(), 0.989629984, 1e-7);
  EXPECT_NEAR(vl->value[6], 0.0563545488, 1e-8);
  EXPECT_NEAR(va->value.back(), 0.983349979, 1e-7);
  EXPECT_NEAR(tl->wall_time_s.back() - tl->wall_time_s.front(), 132.74217, 1e-3);
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(TfEventsCorpus, ProfileEmptyMarkerIsQuiet) {
  SD_CORPUS_OR_SKIP(path, "tf-profiler-demo/events.out.tfevents.1583461681.localhost.profile-empty");
  Trace t;
  auto src = OpenMaybeCompressed(path);
  ASSERT_TRUE(src.ok());
  ImportedFile info;
  Status st = ImportSource(**src, t, {}, &info);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(info.format, InputFormat::kTfRecordEvents);
  EXPECT_TRUE(t.scalars.empty());
  EXPECT_TRUE(t.diagnostics.empty());
}

}  // namespace
}  // namespace stepdoctor
