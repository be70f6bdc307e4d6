// TensorBoard logdirs: the newest profile run is read, --run picks another, the profiler's
// verdict pages are read and its other analysis outputs (*.tensorflow_stats.pb, ...) are skipped
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
  ImportOptions opts;
  opts.profile_run = "GPU-input-bound";
  auto r = ImportPaths({root}, opts);
  ASSERT_TRUE(r.ok()) << r.message();
  // overview_page.pb and input_pipeline.pb hold TensorFlow's verdict: read.
  EXPECT_EQ(r->trace.tf_verdicts.size(), 2u);
  // tensorflow_stats.pb: noted, not an error.
  EXPECT_EQ(r->trace.diagnostics.count(ImportIssue::kSkippedFile), 1u);
  size_t skipped = 0;
  for (const auto& f : r->files) skipped += !f.error.empty();
  EXPECT_EQ(skipped, 1u);
}

}  // namespace
}  // namespace stepdoctor
