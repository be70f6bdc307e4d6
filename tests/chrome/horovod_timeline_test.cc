// Horovod timelines (HOROVOD_TIMELINE): Horovod streams the file and never closes the array;
// NEGOTIATE_* waits for the other ranks, the MPI/NCCL phases move the data.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/model/trace_merge.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// As Horovod writes it: one "process" per tensor, each line ending in a comma, no closing `]`.
// Rank 1 is ready 40 ms after rank 0 (negotiation 0-40 ms); the all-reduce then runs 40-100 ms:
// a 5 ms copy into the fusion buffer and a 55 ms NCCL all-reduce.
const char* kHorovod =
    "[\n"
    R"({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "DistributedAdam_Allreduce/HorovodAllreduce_grads_0"}},)" "\n"
    R"({"name": "process_sort_index", "ph": "M", "pid": 1, "args": {"sort_index": 1}},)" "\n"
    R"({"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 0, "pid": 1},)" "\n"
    R"({"ph": "X", "name": "0", "ts": 1, "pid": 1, "dur": 0},)" "\n"
    R"({"ph": "X", "name": "1", "ts": 40000, "pid": 1, "dur": 0},)" "\n"
    R"({"ph": "E", "ts": 40000, "pid": 1},)" "\n"
    R"({"ph": "B", "name": "ALLREDUCE", "ts": 40000, "pid": 1},)" "\n"
    R"({"ph": "B", "name": "MEMCPY_IN_FUSION_BUFFER", "ts": 40000, "pid": 1},)" "\n"
    R"({"ph": "E", "ts": 45000, "pid": 1},)" "\n"
    R"({"ph": "B", "name": "NCCL_ALLREDUCE", "ts": 45000, "pid": 1},)" "\n"
    R"({"ph": "E", "ts": 100000, "pid": 1},)" "\n"
    R"({"ph": "E", "ts": 100000, "pid": 1, "args": {"dtype": "float32", "shape": "[1024]"}},)" "\n";

Trace ImportInline(const std::string& json) {
  Trace t;
  auto src = MemorySource(json, "horovod_timeline.json");
  Status s = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

using testing::KindOf;

TEST(HorovodTimeline, UnterminatedArrayIsTheNormalForm) {
  Trace t = ImportInline(kHorovod);
  EXPECT_EQ(t.framework, Framework::kHorovod);
  EXPECT_EQ(t.format, "chrome-json (horovod)");
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 0u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kUnclosedBegin), 0u);
}

// Between Horovod's phases run the framework's passes, which the timeline never records: the
// advice is the framework's profiler beside it, not Python stacks.
TEST(HorovodTimeline, GapsAreTheFrameworksWorkNotInTheFile) {
  std::string two_cycles = kHorovod;
  // A second all-reduce 900 ms later: 800 ms between with nothing recorded.
  two_cycles += R"({"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 900000, "pid": 1},)" "\n"
                R"({"ph": "E", "ts": 910000, "pid": 1},)" "\n"
                R"({"ph": "B", "name": "ALLREDUCE", "ts": 910000, "pid": 1},)" "\n"
                R"({"ph": "E", "ts": 960000, "pid": 1},)" "\n";
  Report r = AnalyzeTrace(ImportInline(two_cycles));
  const Finding* f = testing::FindFinding(r, "untraced_time");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("a Horovod timeline records only Horovod's own phases"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.summary.find("framework's profiler"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.summary.find("Python call stacks"), std::string::npos);
}

// A folder mixing one process's Horovod timeline with another's profile: each worker keeps its
// own files' framework, so the profiled worker's gaps are not "Horovod's phases only" and its
// report speaks PyTorch, whichever file was read first.
TEST(HorovodTimeline, AnotherProcessInTheFolderKeepsItsOwnFramework) {
  std::string kineto = R"({"schemaVersion": 1, "traceEvents": [)";
  for (int s = 0; s < 4; ++s) {
    const int t0 = 1000 + s * 100000;
    kineto += fmt::format(R"({}{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "ts": {}, "dur": 100000, "pid": 7, "tid": 7}},)"
                          R"({{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": {}, "dur": 10000, "pid": 7, "tid": 7}})",
                          s ? "," : "", s, t0, t0 + 10);
  }
  kineto += "]}";
  Trace profile;
  auto src = MemorySource(kineto, "rank0.pt.trace.json");
  ASSERT_TRUE(ImportChromeJson(*src, profile, nullptr, {}).ok());
  ASSERT_EQ(profile.framework, Framework::kPyTorch);

  Trace folder;
  MergeTrace(folder, ImportInline(kHorovod));  // the Horovod file read first names the trace
  MergeTrace(folder, std::move(profile));
  folder.Finalize();
  ASSERT_EQ(folder.workers.size(), 2u);
  EXPECT_EQ(FrameworkOf(folder, WorkerId{0}), Framework::kHorovod);
  EXPECT_EQ(FrameworkOf(folder, WorkerId{1}), Framework::kPyTorch);

  Report r = AnalyzeTrace(folder);  // the profiled worker has the most events
  EXPECT_EQ(r.coverage.framework, "pytorch");
  const Finding* f = testing::FindFinding(r, "untraced_time");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title.find("Horovod"), std::string::npos) << f->title;
  EXPECT_EQ(f->fix.summary.find("HOROVOD_TIMELINE"), std::string::npos) << f->fix.summary;
}

// One process's own files joined (SageMaker's model and Horovod timelines): the other file's
// framework wins over Horovod's, whose timeline records only Horovod's own phases.
TEST(HorovodTimeline, JoinedFrameworkPrefersTheProfile) {
  EXPECT_EQ(JoinedFramework(Framework::kHorovod, Framework::kTensorFlow), Framework::kTensorFlow);
  EXPECT_EQ(JoinedFramework(Framework::kTensorFlow, Framework::kHorovod), Framework::kTensorFlow);
  // The other file names no framework: the worker is not a Horovod timeline alone either.
  EXPECT_EQ(JoinedFramework(Framework::kHorovod, Framework::kUnknown), Framework::kUnknown);
  EXPECT_EQ(JoinedFramework(Framework::kHorovod, Framework::kHorovod), Framework::kHorovod);
  EXPECT_EQ(JoinedFramework(Framework::kUnknown, Framework::kPyTorch), Framework::kPyTorch);
  EXPECT_EQ(JoinedFramework(Framework::kPyTorch, Framework::kTensorFlow), Framework::kPyTorch);
}

TEST(HorovodTimeline, CutInsideAnEventIsStillTruncation) {
  std::string cut = std::string(kHorovod) + R"({"ph": "B", "name": "NEGOTIATE_ALLRED)";
  Trace t = ImportInline(cut);
  EXPECT_EQ(t.framework, Framework::kHorovod);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

TEST(HorovodTimeline, PhasesAreWaitsAndTransfers) {
  Trace t = ImportInline(kHorovod);
  EXPECT_EQ(KindOf(t, "NEGOTIATE_ALLREDUCE"), EventKind::kCollectiveWait);
  EXPECT_EQ(KindOf(t, "ALLREDUCE"), EventKind::kCollective);
  EXPECT_EQ(KindOf(t, "MEMCPY_IN_FUSION_BUFFER"), EventKind::kCollective);
  EXPECT_EQ(KindOf(t, "NCCL_ALLREDUCE"), EventKind::kCollective);
  EXPECT_EQ(KindOf(t, "1"), EventKind::kOther);  // rank 1 ready
}

// Negotiation is waiting for the other ranks, not data moving: 0-40 ms is peer wait, 40-100 ms the
// all-reduce.
TEST(HorovodTimeline, NegotiationIsPeerWaitNotTransfer) {
  Report r = AnalyzeTrace(ImportInline(kHorovod));
  double collectives = -1, peer = -1;
  for (const auto& b : r.breakdown)
    if (b.category == "collectives") collectives = b.ms_per_step;
  for (const auto& b : r.breakdown_detail)
    if (b.category == "other_peer_wait") peer = b.ms_per_step;
  EXPECT_NEAR(collectives, 60, 0.1);
  EXPECT_NEAR(peer, 40, 0.1);
}

TEST(HorovodTimeline, CollectiveAdviceSpeaksHorovod) {
  Trace t = ImportInline(kHorovod);
  Report r = AnalyzeTrace(t);
  const Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.id == "collective_bound") f = &x;
  ASSERT_NE(f, nullptr) << "the whole 100 ms window is negotiation or all-reduce";
  EXPECT_NE(f->fix.tensorflow.find("HOROVOD_FUSION_THRESHOLD"), std::string::npos);
  EXPECT_NE(f->fix.tensorflow.find("HOROVOD_CYCLE_TIME"), std::string::npos);
  EXPECT_EQ(f->fix.tensorflow.find("MultiWorkerMirroredStrategy"), std::string::npos);
}

// smdebug's copy of a Horovod timeline (TF/Keras, Adam_Allreduce tensors): its rank-ready markers
// carry durations of about 9.4 days, which Horovod never writes; they are read as instants.
TEST(HorovodTimeline, SmdebugCopyKeepsMarkersAsInstants) {
  SD_CORPUS_OR_SKIP(path, "smdebug/horovod_timeline_traces/framework/pevents/2020070206/"
                          "1593673051473228_88359-8c859046be41.ant.amazon.com_horovod_timeline.json");
  auto imp = ImportPaths({path});
  ASSERT_TRUE(imp.ok()) << imp.message();
  const Trace& t = imp->trace;
  EXPECT_EQ(t.framework, Framework::kHorovod);
  EXPECT_EQ(KindOf(t, "NEGOTIATE_ALLREDUCE"), EventKind::kCollectiveWait);
  // Every rank-ready marker in the file ("4", "5", "7") carries one.
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kInstantWithDuration), 19u);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& tl : t.timelines)
    for (size_t i = 0; i < tl.ev.size(); ++i) {
      lo = std::min(lo, tl.ev.start_ns[i]);
      hi = std::max(hi, tl.end_ns(i));
    }
  // The events span 8.44 s to 9.30 s of the job's clock: under a second, not days.
  EXPECT_LT(hi - lo, int64_t{1'000'000'000});
}

}  // namespace
}  // namespace stepdoctor
