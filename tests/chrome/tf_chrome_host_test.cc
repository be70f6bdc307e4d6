// TensorFlow's Chrome trace (the profile plugin's <host>.trace.json.gz) when only the host was
// traced: ops on the executor and Python threads are operators, steps come from TF's own step
// events, and GPUs that are named but hold no events are said to be unknown, not idle.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

bool HasNote(const Trace& t, const std::string& part) {
  for (const auto& [issue, note] : t.diagnostics.notes())
    if (note.find(part) != std::string::npos) return true;
  return false;
}

// Two 10 ms train_function steps on the Python thread; MatMul on a tf_Compute thread.
const char* kHostOnly = R"({"displayTimeUnit": "ns", "traceEvents": [
  {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
  {"ph": "M", "pid": 49, "name": "process_name", "args": {"name": "/host:CPU"}},
  {"ph": "M", "pid": 49, "tid": 1, "name": "thread_name", "args": {"name": "python3"}},
  {"ph": "M", "pid": 49, "tid": 2, "name": "thread_name", "args": {"name": "tf_Compute"}},
  {"ph": "X", "pid": 49, "tid": 1, "ts": 0, "dur": 10000, "name": "train_function"},
  {"ph": "X", "pid": 49, "tid": 1, "ts": 10000, "dur": 10000, "name": "train_function"},
  {"ph": "X", "pid": 49, "tid": 2, "ts": 1000, "dur": 8000, "name": "MatMul"},
  {"ph": "X", "pid": 49, "tid": 2, "ts": 11000, "dur": 8000, "name": "MatMul"},
  {}
]})";

TEST(TfChromeHost, GpusNamedWithoutEventsAreSaidToBeUnknown) {
  Trace t;
  auto src = MemorySource(kHostOnly, "localhost.trace.json");
  ASSERT_TRUE(ImportChromeJson(*src, t, nullptr, {}).ok());
  EXPECT_EQ(t.framework, Framework::kTensorFlow);
  EXPECT_TRUE(HasNote(t, "holds no GPU tracer events"));
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.steps.count, 2);  // TF's own step events, not the whole window
  EXPECT_FALSE(r.steps.whole_window);
}

// smdebug's copy of a TF profiler trace from an 8-GPU host whose device lanes are empty.
TEST(TfChromeHost, SmdebugCaptureWithEmptyGpuLanes) {
  SD_CORPUS_OR_SKIP(path, "smdebug/tfprofiler_local_missing_metadata/framework/tensorflow/detailed_profiling/"
                          "2020080513/000000000/plugins/profile/2020_08_05_13_37_44/ip-172-31-19-241.trace.json.gz");
  auto imp = ImportPaths({path});
  ASSERT_TRUE(imp.ok()) << imp.message();
  EXPECT_TRUE(HasNote(imp->trace, "names 8 GPU lane(s) but holds no GPU tracer events"));
  Report r = AnalyzeTrace(imp->trace);
  EXPECT_EQ(r.steps.count, 1);  // one Keras train_function of 63.9 ms
  EXPECT_NEAR(r.steps.median_ms, 63.9, 0.1);
}

// The trace viewer's planes are written alike by TensorFlow, JAX and programs recording through
// the profiler's C++ API: the framework is the one the thread and event names show, and a file
// with none of them is the program's own spans, not TensorFlow's (its advice would be TF code).
Framework FrameworkOf(const std::string& events) {
  const std::string text = R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}},
    {"ph": "M", "pid": 1, "tid": 7, "name": "thread_name", "args": {"name": "worker"}},
    {"ph": "X", "pid": 1, "tid": 7, "ts": 0, "dur": 40000, "name": "workload"},
    )" + events + R"(
    {"ph": "X", "pid": 1, "tid": 7, "ts": 100, "dur": 30000, "name": "compute"}]})";
  Trace t;
  auto src = MemorySource(text, "native_trace.json");
  EXPECT_TRUE(ImportChromeJson(*src, t, nullptr, {}).ok());
  return t.framework;
}

TEST(TfChromeHost, TheFrameworkIsTheOneTheNamesShow) {
  EXPECT_EQ(FrameworkOf(""), Framework::kUnknown);
  EXPECT_EQ(FrameworkOf(R"({"ph": "M", "pid": 1, "tid": 8, "name": "thread_name", "args": {"name": "tf_Compute"}},)"),
            Framework::kTensorFlow);
  EXPECT_EQ(FrameworkOf(R"({"ph": "X", "pid": 1, "tid": 7, "ts": 5, "dur": 9, "name": "EagerExecute: __inference_train_function_77"},)"),
            Framework::kTensorFlow);
  EXPECT_EQ(FrameworkOf(R"J({"ph": "X", "pid": 1, "tid": 7, "ts": 5, "dur": 9, "name": "PjitFunction(train_step)"},)J"),
            Framework::kJax);
  // Both: TensorFlow (a TF program calling XLA through its own runtime).
  EXPECT_EQ(FrameworkOf(R"J({"ph": "X", "pid": 1, "tid": 7, "ts": 5, "dur": 9, "name": "PjitFunction(f)"},
                           {"ph": "X", "pid": 1, "tid": 7, "ts": 20, "dur": 9, "name": "IteratorGetNext"},)J"),
            Framework::kTensorFlow);

  // With no framework named, the report is of the program's own spans: no finding gives
  // TensorFlow's code alone (an unknown framework's advice names both).
  Trace t;
  auto src = MemorySource(R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}},
    {"ph": "X", "pid": 1, "tid": 7, "ts": 0, "dur": 400000, "name": "workload"},
    {"ph": "X", "pid": 1, "tid": 7, "ts": 100, "dur": 300000, "name": "compute"}]})", "native_trace.json");
  ASSERT_TRUE(ImportChromeJson(*src, t, nullptr, {}).ok());
  EXPECT_EQ(t.format, "chrome-json (trace viewer)");
  Report r = AnalyzeTrace(t);
  for (const Finding& f : r.findings) EXPECT_EQ(f.fix.tensorflow.empty(), f.fix.pytorch.empty()) << f.id;
  EXPECT_EQ(r.coverage.confidence, "low");
}

}  // namespace
}  // namespace stepdoctor
