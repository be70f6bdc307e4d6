// TensorBoard logdirs: the newest profile run is read, --run picks another, the profiler's
// verdict pages and op statistics (*.tensorflow_stats.pb) are read, its other analysis outputs (*.pod_viewer.json, ...) are skipped
// and said so, and the .profile-empty
// event file is accepted quietly.
#include <gtest/gtest.h>

#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

TEST(XplaneLogdir, NewestRunAndProfileEmptyMarker) {
  SD_CORPUS_OR_SKIP(root, "tf-profiler-demo");
  auto r = ImportPaths({root});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->profile_runs,
            (std::vector<std::string>{"Cloud-TPU", "GPU-compute-bound", "GPU-input-bound", "GPU-multi-worker"}));
  EXPECT_EQ(r->chosen_run, "GPU-multi-worker");
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->files[0].format, InputFormat::kTfRecordEvents);  // the .profile-empty marker
  EXPECT_TRUE(r->files[0].error.empty());
  EXPECT_EQ(r->files[1].format, InputFormat::kXSpace);
  EXPECT_EQ(r->trace.format, "xplane (tensorflow)");
  EXPECT_EQ(r->trace.EventCount(), 23128u);
  EXPECT_EQ(r->trace.diagnostics.count(ImportIssue::kSkippedFile), 0u);
}

TEST(XplaneLogdir, VerdictPagesReadOtherAnalysisOutputsSkippedAndSaidSo) {
  SD_CORPUS_OR_SKIP(root, "tf-profiler-demo");
  for (const char* run : {"GPU-input-bound", "Cloud-TPU"}) {
    ImportOptions opts;
    opts.profile_run = run;
    auto r = ImportPaths({root}, opts);
    ASSERT_TRUE(r.ok()) << r.message();
    // overview_page, input_pipeline (protobuf or JSON) and tensorflow_stats.pb: read.
    EXPECT_EQ(r->trace.tf_verdicts.size(), 3u) << run;
    size_t op_stats = 0;
    for (const auto& v : r->trace.tf_verdicts) op_stats += v.op_stats;
    EXPECT_EQ(op_stats, 1u) << run;
    // Cloud-TPU's pod_viewer.json: noted, not an error; GPU-input-bound has nothing else.
    const size_t expect_skipped = std::string(run) == "Cloud-TPU" ? 1 : 0;
    EXPECT_EQ(r->trace.diagnostics.count(ImportIssue::kSkippedFile), expect_skipped) << run;
    size_t skipped = 0;
    for (const auto& f : r->files) skipped += !f.error.empty();
    EXPECT_EQ(skipped, expect_skipped) << run;
  }
}

}  // namespace
}  // namespace stepdoctor
