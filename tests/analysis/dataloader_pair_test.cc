// The DataLoader pair (EXPECTED.md §3): num_workers=0 is input-bound with about 30% of each
// ~152 ms step in the DataLoader; num_workers=4 is not input-bound.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

const Finding* FindFinding(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(DataLoaderPair, NumWorkers0IsInputBound) {
  SD_CORPUS_OR_SKIP(path, "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  Report rep = AnalyzeTrace(r->trace);
  EXPECT_EQ(rep.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_EQ(rep.steps.count, 6);
  EXPECT_NEAR(rep.steps.median_ms, 152.45, 0.5);  // steps 159.4 149.0 148.7 151.7 153.2 155.7
  EXPECT_NEAR(rep.steps.max_ms, 159.4, 0.1);
  const Finding* f = FindFinding(rep, "input_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_NEAR(f->share_pct, 30.0, 2.0);             // 44-47 ms of ~152 ms
  EXPECT_GT(f->gain_upper_bound, 1.2);               // the fix measured 1.24x
  EXPECT_LT(f->gain_upper_bound, 1.45);
  EXPECT_EQ(rep.verdict.summary.rfind("input-bound: ", 0), 0u) << rep.verdict.summary;
}

TEST(DataLoaderPair, NumWorkers4IsNotInputBound) {
  SD_CORPUS_OR_SKIP(path, "kineto-tb-plugin-samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  Report rep = AnalyzeTrace(r->trace);
  EXPECT_NE(rep.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_EQ(FindFinding(rep, "input_bound"), nullptr);
  EXPECT_NEAR(rep.steps.median_ms, 125.1, 1.0);  // 160.1 121.9 123.1 117.8 127.1 206.5
  // The 206.5 ms step stands out.
  const Finding* o = FindFinding(rep, "step_time_outliers");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(rep.steps.outlier_numbers.size(), 1u);
}

// The project's own recorded examples (always present): CPU-only, legacy profiler format.
TEST(Examples, InputBoundExampleIsInputBound) {
  auto r = ImportPaths({testing::SourcePath("examples/dataloader_input_bound.pt.trace.json.gz")});
  ASSERT_TRUE(r.ok()) << r.message();
  Report rep = AnalyzeTrace(r->trace);
  EXPECT_EQ(rep.verdict.bottleneck, Bottleneck::kInput);
  const Finding* f = FindFinding(rep, "input_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->share_pct, 54.1, 3.0);  // measured at recording: examples/README.md
  EXPECT_EQ(rep.steps.count, 6);
}

TEST(Examples, InMemoryExampleIsNotInputBound) {
  auto r = ImportPaths({testing::SourcePath("examples/dataloader_in_memory.pt.trace.json.gz")});
  ASSERT_TRUE(r.ok()) << r.message();
  Report rep = AnalyzeTrace(r->trace);
  EXPECT_NE(rep.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_EQ(FindFinding(rep, "input_bound"), nullptr);
}

}  // namespace
}  // namespace stepdoctor
