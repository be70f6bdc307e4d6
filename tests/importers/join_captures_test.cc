// One process's successive profiling cycles, a file each (torch.profiler's schedule with
// repeat > 1 and tensorboard_trace_handler), are read as one worker; other sets of files are not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/join_captures.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// An autograd-profiler export (a bare array, times from the capture's start) of ProfilerStep#N
// for N in [first, first + n), each 10 ms, starting `t0_us` in.
std::string LegacySteps(int first, int n, double t0_us = 100) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    const double ts = t0_us + i * 10'000;
    if (i) out += ", ";
    out += "{\"name\": \"ProfilerStep#" + std::to_string(first + i) + "\", \"ph\": \"X\", \"ts\": " +
           std::to_string(ts) + ", \"dur\": 9000, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}, " +
           "{\"name\": \"aten::addmm\", \"ph\": \"X\", \"ts\": " + std::to_string(ts + 10) +
           ", \"dur\": 8000, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}";
  }
  return out + "]";
}

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

Trace Import(const std::string& dir) {
  auto r = ImportPaths({dir});
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? std::move(r->trace) : Trace{};
}

// The autograd profiler's clock restarts in each file: the second cycle is placed after the
// first, and both cycles' steps are the worker's.
TEST(JoinCaptures, CyclesOfOneProcessAreOneWorker) {
  const std::string dir = testing::MakeTempDir("sd_cycles");
  Write(dir + "/host_12.1700000000100.pt.trace.json", LegacySteps(1, 3));
  Write(dir + "/host_12.1700000000900.pt.trace.json", LegacySteps(6, 3));
  Trace t = Import(dir);
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 1u);
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  ASSERT_EQ(w.steps.size(), 6u);
  EXPECT_EQ(w.steps[2].number, 3);
  EXPECT_EQ(w.steps[3].number, 6);
  EXPECT_GE(w.steps[3].start_ns, w.steps[2].end_ns + kCaptureGapNs);  // placed after, outside any step
  for (const auto& s : w.steps) EXPECT_EQ(s.dur_ns(), 9'000'000);
}

// Kineto's clock runs across cycles: the later file already lies after the earlier one, and keeps
// its times.
TEST(JoinCaptures, ACycleLaterInTimeKeepsItsTimes) {
  const std::string dir = testing::MakeTempDir("sd_cycles_abs");
  Write(dir + "/w.1.pt.trace.json", LegacySteps(1, 2, 1'000));
  Write(dir + "/w.2.pt.trace.json", LegacySteps(3, 2, 500'000));
  Trace t = Import(dir);
  ASSERT_EQ(t.workers.size(), 1u);
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  ASSERT_EQ(w.steps.size(), 4u);
  EXPECT_EQ(w.steps[2].start_ns, 500'000'000);
}

// Two runs of a script in one folder number their steps from the start again: two workers.
TEST(JoinCaptures, RestartedStepNumbersAreAnotherRun) {
  const std::string dir = testing::MakeTempDir("sd_two_runs");
  Write(dir + "/host_12.1.pt.trace.json", LegacySteps(1, 3));
  Write(dir + "/host_12.2.pt.trace.json", LegacySteps(1, 3));
  Trace t = Import(dir);
  EXPECT_EQ(t.workers.size(), 2u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 0u);
}

// Files in different folders, or of different workers, stay apart.
TEST(JoinCaptures, OtherFoldersOrWorkersStayApart) {
  const std::string dir = testing::MakeTempDir("sd_apart");
  Write(dir + "/a/host_12.1.pt.trace.json", LegacySteps(1, 3));
  Write(dir + "/b/host_12.2.pt.trace.json", LegacySteps(6, 3));
  EXPECT_EQ(Import(dir).workers.size(), 2u);
  const std::string other = testing::MakeTempDir("sd_other_worker");
  Write(other + "/rank0.1.pt.trace.json", LegacySteps(1, 3));
  Write(other + "/rank1.2.pt.trace.json", LegacySteps(6, 3));
  EXPECT_EQ(Import(other).workers.size(), 2u);
}

// A TF1 timeline of one sess.run: a GPU compute lane, the executor's _SOURCE and a MatMul,
// `t0_us` on the wall clock, 8 ms long.
std::string Tf1Run(double t0_us) {
  auto op = [&](const char* op, const char* node, double ts, double dur) {
    return ",{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"" + std::string(op) + "\",\"pid\":1,\"tid\":0,\"ts\":" +
           std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":{\"name\":\"" + node + "\",\"op\":\"" +
           op + "\"}}";
  };
  return "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":"
         "\"/job:localhost/replica:0/task:0/device:GPU:0 Compute\"}}" +
         op("NoOp", "_SOURCE", t0_us, 10) + op("MatMul", "dense/MatMul", t0_us + 20, 7'980) + "]}";
}

// A timeline written per step: the files follow one another on the clock, so they are one
// worker's runs, a step each, and the time between them (the loop, writing the file) is in none.
TEST(JoinCaptures, Tf1TimelinePerStepIsOneWorkersSteps) {
  const std::string dir = testing::MakeTempDir("sd_tf1_steps");
  // Listed out of time order ("timeline_10" before "timeline_2"): joined in time order.
  const double t0 = 1.7e15;
  Write(dir + "/timeline_1.json", Tf1Run(t0));
  Write(dir + "/timeline_2.json", Tf1Run(t0 + 50'000));
  Write(dir + "/timeline_10.json", Tf1Run(t0 + 100'000));
  Trace t = Import(dir);
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 1u);
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  ASSERT_EQ(w.steps.size(), 3u) << w.source;
  for (const auto& s : w.steps) EXPECT_EQ(s.dur_ns(), 8'000'000);
  EXPECT_EQ(w.steps[1].start_ns - w.steps[0].start_ns, 50'000'000);
}

// Workers of a distributed TF1 job write timelines of the same time: they stay apart.
TEST(JoinCaptures, OverlappingTf1TimelinesStayWorkers) {
  const std::string dir = testing::MakeTempDir("sd_tf1_workers");
  Write(dir + "/worker0.json", Tf1Run(1.7e15));
  Write(dir + "/worker1.json", Tf1Run(1.7e15 + 3'000));
  Trace t = Import(dir);
  EXPECT_EQ(t.workers.size(), 2u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 0u);
}

// SageMaker's profiler (smdebug): one process's model timeline (tf.data's GetNext calls) and its
// Python timeline (the Step:ModeKeys.TRAIN markers) are two files, each timed from its own start
// (start_time_since_epoch_in_micros). Moved onto the wall clock and joined, the steps hold the
// input waits; a process of another name, or another run's folder, stays apart.
std::string Smdebug(int64_t start_us, const std::string& lane, const std::string& events) {
  return "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\":" +
         std::to_string(start_us) + "}},\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"" +
         lane + "\"}}" + events + "\n]\n";
}

TEST(JoinCaptures, SmdebugFilesOfOneProcessAreOneWorkerOnTheWallClock) {
  const std::string dir = testing::MakeTempDir("sd_smdebug");
  const int64_t py_start = 1594662605425850, model_start = py_start - 7'000'000;  // the model file began 7 s earlier
  std::string steps, waits;
  for (int k = 0; k < 5; ++k) {
    const int64_t at = 1'000'000 + k * 100'000;  // in the Python file's clock: each step 100 ms
    steps += ",\n{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": " + std::to_string(at) +
             ", \"dur\": 100000, \"args\": {\"step_num\": \"" + std::to_string(k) + "\"}}";
    // Its GetNext, 30 ms at the start of each step, in the model file's clock.
    waits += ",\n{\"ph\": \"X\", \"name\": \"dataset::GetNext\", \"ts\": " + std::to_string(at + 7'000'000) +
             ", \"pid\": 1, \"dur\": 30000}";
  }
  const std::string pe = dir + "/run/framework/pevents/2020071317/";
  Write(pe + "1594662624718694_905-b88ab1bb8259_pythontimeline.json", Smdebug(py_start, "Step:ModeKeys.TRAIN", steps));
  Write(pe + "1594662624558411_905-b88ab1bb8259_model_timeline.json", Smdebug(model_start, "DataIterator", waits));
  Trace t = Import(dir + "/run");
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].hostname, "b88ab1bb8259");
  EXPECT_EQ(t.workers[0].pid, 905);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 1u);
  const StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  ASSERT_GE(w.steps.size(), 4u);
  EXPECT_EQ(w.steps[1].start_ns, (py_start + 1'100'000) * 1000);  // the wall clock
  const Report r = AnalyzeTrace(t);
  const Finding* input = testing::FindFinding(r, "input_bound");
  ASSERT_NE(input, nullptr) << r.verdict.summary;  // 30 of each 100 ms step
  EXPECT_NEAR(input->share_pct, 30.0, 1.0);

  // Another process's files, and the same process under another run, are other workers.
  const std::string two = testing::MakeTempDir("sd_smdebug2");
  Write(two + "/a/framework/pevents/1/1594662624718694_905-b88ab1bb8259_pythontimeline.json",
        Smdebug(py_start, "Step:ModeKeys.TRAIN", steps));
  Write(two + "/b/framework/pevents/1/1594662624558411_905-b88ab1bb8259_model_timeline.json",
        Smdebug(model_start, "DataIterator", waits));
  Write(two + "/a/framework/pevents/1/1594662624558411_906-b88ab1bb8259_model_timeline.json",
        Smdebug(model_start, "DataIterator", waits));
  EXPECT_EQ(Import(two).workers.size(), 3u);
}

// SageMaker's system monitor writes a file per node and minute: one node's files are one machine's
// samples (six GPU samples over three files), another node's stay apart.
TEST(JoinCaptures, SageMakerSystemMetricsMinutesOfOneNodeAreOneWorker) {
  const std::string dir = testing::MakeTempDir("sd_smsys");
  auto line = [](const char* node, double v, double ts) {
    return "{\"Type\": \"gpu\", \"Name\":\"gpu0\", \"Dimension\": \"GPUUtilization\", \"Value\":" + std::to_string(v) +
           ",\"NodeId\":\"" + node + "\",\"Timestamp\":" + std::to_string(ts) + "}\n";
  };
  for (int m = 0; m < 3; ++m) {
    const double t0 = 1591748100.0 + 60 * m;
    Write(dir + "/system/incremental/" + std::to_string(int64_t(t0)) + ".algo-1.json",
          line("algo-1", 10, t0 + 1) + line("algo-1", 12, t0 + 31));
  }
  Write(dir + "/system/incremental/1591748100.algo-2.json", line("algo-2", 90, 1591748101.0));
  Trace t = Import(dir);
  ASSERT_EQ(t.workers.size(), 2u);
  size_t most = 0;
  for (const auto& c : t.counters) most = std::max(most, c.value.size());
  EXPECT_EQ(most, 6u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kJoinedCaptures), 1u);
}

}  // namespace
}  // namespace stepdoctor
