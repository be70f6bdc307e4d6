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

}  // namespace
}  // namespace stepdoctor
