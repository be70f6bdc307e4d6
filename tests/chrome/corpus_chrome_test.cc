// Every Chrome-trace file in ../shared/corpus imports without error, with its event count
// and step count pinned (counted independently with Python's json module: X, B/E pairs, and
// i events; flows and metadata are not events).
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"

#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

struct Case {
  const char* path;
  size_t events;
  int steps;  // 0: no markers, analysed as one window
};

const Case kCases[] = {
    {"hta-testdata/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 115, 2},
    {"hta-testdata/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 7482, 5},
    {"hta-testdata/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 870, 0},
    {"hta-testdata/df_index_resolver/df_index_resolver.json.gz", 151391, 5},
    {"hta-testdata/nccl_parser_config/nccl_data.json.gz", 26935, 3},
    {"hta-testdata/negative_queue_length_values_check/rank0.json.gz", 67219, 5},
    {"hta-testdata/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 45422, 5},
    {"hta-testdata/trace_diff/control/control.json.gz", 74939, 6},
    {"hta-testdata/trace_diff/test/test.json.gz", 68326, 6},
    {"hta-testdata/trace_filter/sampled_rank-0.json.gz", 4811, 2},
    {"hta-testdata/trace_filter/sampled_rank-1.json.gz", 4676, 2},
    {"kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", 57506, 6},
    {"kineto-tb-plugin-samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz", 52888, 6},
    {"param-chakra/resnet_kineto.json.gz", 75550, 30},  // inferred: 30 DataLoader fetches, 30 optimizer steps
    {"smdebug/horovod_timeline_traces/framework/pevents/2020070206/"
     "1593673051473228_88359-8c859046be41.ant.amazon.com_horovod_timeline.json",
     24, 0},
    {"smdebug/merge_traces/framework/pevents/2020071317/1594662624558411_905-b88ab1bb8259_model_timeline.json", 661, 0},
    {"smdebug/merge_traces/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json", 40, 30},
    {"smdebug/tfprofiler_local_missing_metadata/framework/tensorflow/detailed_profiling/2020080513/000000000/plugins/"
     "profile/2020_08_05_13_37_44/ip-172-31-19-241.trace.json.gz",
     256, 1},
    {"tracelens-testdata/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz", 21014, 4},  // inferred: between 5 optimizer steps
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.path; }

class CorpusChrome : public ::testing::TestWithParam<Case> {};

TEST_P(CorpusChrome, ImportsWithPinnedCounts) {
  const Case& c = GetParam();
  SD_CORPUS_OR_SKIP(path, c.path);
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  const Trace& t = r->trace;
  EXPECT_EQ(t.EventCount(), c.events);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 0u);
  StepWindows w = TraceToSteps(t, PrimaryWorker(t));
  // Steps from markers or inferred iterations, warm-up included (it is shown, not analysed).
  EXPECT_EQ(w.whole_window ? 0 : int(w.steps.size() + w.warmup.size()), c.steps);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string s = info.param.path;
  s = s.substr(s.find_last_of('/') + 1);
  std::string out;
  for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out.substr(0, 40) + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(All, CorpusChrome, ::testing::ValuesIn(kCases), CaseName);

// The SageMaker folder's two files are one process's (905-b88ab1bb8259): joined, its Python
// timeline's 30 training steps (the first, 9 s, warm-up) hold the model timeline's GetNext calls,
// under 0.2% of each 84 ms step (recounted from the events), not a window of untraced time.
TEST(CorpusChromeFolder, SmdebugProcessFilesJoin) {
  SD_CORPUS_OR_SKIP(path, "smdebug/merge_traces");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->trace.workers.size(), 1u);
  const StepWindows w = TraceToSteps(r->trace, PrimaryWorker(r->trace));
  ASSERT_EQ(w.steps.size(), 29u) << w.source;
  const Report rep = AnalyzeTrace(r->trace);
  EXPECT_NEAR(rep.steps.median_ms, 84.2, 0.2);
  for (const auto& b : rep.breakdown)
    if (b.category == "input") {
      EXPECT_LT(b.pct, 0.2);
    }
}

}  // namespace
}  // namespace stepdoctor
