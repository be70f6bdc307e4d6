// ReportFromJson over real reports: every example the project ships, the DDP job's ranks
// together, the TensorFlow profiler's pages and each trace of ../shared/corpus (where it is
// there) analysed, rendered, read back and rendered again, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "render/json_round_trip.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;

// Files under the corpus larger than this are left out, to keep the suite quick.
constexpr uintmax_t kMaxCorpusFileBytes = 20u << 20;

Result<Report> Analyze(const std::vector<std::string>& paths) {
  auto imported = ImportPaths(paths);
  if (!imported.ok()) return imported.status();
  return AnalyzeTrace(imported->trace);
}

// Every trace the project ships under examples/, one report each, and its JSON read back.
TEST(JsonReadExamples, EachExampleRoundTrips) {
  std::vector<std::string> inputs = {testing::SourcePath("examples/gpu/jax_logdir")};
  for (const auto& e : fs::recursive_directory_iterator(testing::SourcePath("examples"))) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && (name.ends_with(".pt.trace.json.gz") || name.ends_with(".csv") || name.ends_with(".jsonl")))
      inputs.push_back(e.path().string());
  }
  std::sort(inputs.begin(), inputs.end());
  ASSERT_GE(inputs.size(), 15u);
  bool predicted = false, unavailable = false, kernel_tables = false;
  for (const auto& path : inputs) {
    auto r = Analyze({path});
    ASSERT_TRUE(r.ok()) << path << ": " << r.message();
    testing::ExpectJsonRoundTrip(*r, path);
    auto back = ReportFromJson(RenderJson(*r, {}));
    ASSERT_TRUE(back.ok()) << path << ": " << back.message();
    EXPECT_EQ(back->verdict.bottleneck, r->verdict.bottleneck) << path;
    ASSERT_EQ(back->findings.size(), r->findings.size()) << path;
    for (size_t i = 0; i < r->findings.size(); ++i) {
      EXPECT_EQ(back->findings[i].severity, r->findings[i].severity) << path;
      EXPECT_EQ(bool(back->findings[i].prediction), bool(r->findings[i].prediction)) << path;
      if (const auto& p = r->findings[i].prediction) {
        EXPECT_EQ(back->findings[i].prediction->predicted, p->predicted) << path;
        (p->predicted ? predicted : unavailable) = true;
      }
    }
    ASSERT_EQ(bool(back->critical_path), bool(r->critical_path)) << path;
    if (r->critical_path) {
      EXPECT_EQ(back->critical_path->median_index, r->critical_path->median_index) << path;
      EXPECT_EQ(back->critical_path->steps.size(), r->critical_path->steps.size()) << path;
    }
    EXPECT_EQ(bool(back->kernel_tables), bool(r->kernel_tables)) << path;
    kernel_tables |= r->kernel_tables.has_value() && r->critical_path.has_value();
  }
  // The examples hold what the reader must carry: predictions, fixes it cannot predict, the
  // critical path and the kernel tables.
  EXPECT_TRUE(predicted);
  EXPECT_TRUE(unavailable);
  EXPECT_TRUE(kernel_tables);
}

// Both ranks of the DDP example in one report: the rank rows, their alignment and the straggler's
// figures.
TEST(JsonReadExamples, DdpJobRoundTrips) {
  auto r = Analyze({testing::SourcePath("examples/ddp")});
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->workers.size(), 2u);
  ASSERT_TRUE(r->alignment);
  const auto with_figures =
      std::find_if(r->findings.begin(), r->findings.end(), [](const Finding& f) { return !f.figures.empty(); });
  ASSERT_NE(with_figures, r->findings.end());
  testing::ExpectJsonRoundTrip(*r, "examples/ddp");
  auto back = ReportFromJson(RenderJson(*r, {}));
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->workers.size(), 2u);
  EXPECT_EQ(back->workers[1].rank, r->workers[1].rank);
  EXPECT_EQ(back->workers[1].step_numbers, r->workers[1].step_numbers);
  ASSERT_TRUE(back->alignment);
  EXPECT_EQ(back->alignment->aligned, r->alignment->aligned);
  EXPECT_EQ(back->alignment->collectives.size(), r->alignment->collectives.size());
  const Finding& f = back->findings[size_t(with_figures - r->findings.begin())];
  ASSERT_EQ(f.figures.size(), with_figures->figures.size());
  for (size_t i = 0; i < f.figures.size(); ++i) EXPECT_EQ(f.figures[i].first, with_figures->figures[i].first);
}

// TensorFlow's own verdict, read from its profile pages.
TEST(JsonReadCorpus, TensorFlowViewRoundTrips) {
  SD_CORPUS_OR_SKIP(dir, "tf-profiler-demo/plugins/profile/GPU-input-bound");
  auto r = Analyze({dir});
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_FALSE(r->tensorflow_view.empty());
  testing::ExpectJsonRoundTrip(*r, dir);
  auto back = ReportFromJson(RenderJson(*r, {}));
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->tensorflow_view.size(), r->tensorflow_view.size());
  EXPECT_EQ(back->tensorflow_view[0].host, r->tensorflow_view[0].host);
  EXPECT_EQ(bool(back->tensorflow_view[0].input_pct), bool(r->tensorflow_view[0].input_pct));
  EXPECT_EQ(back->tensorflow_view[0].breakdown.size(), r->tensorflow_view[0].breakdown.size());
}

bool IsCorpusTrace(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".pb") || name.ends_with(".csv") ||
         name.find("tfevents") != std::string::npos;
}

// Each trace file of the corpus under kMaxCorpusFileBytes, on its own; those that do not import
// are left out (other tests cover them).
TEST(JsonReadCorpus, EachTraceRoundTrips) {
  SD_CORPUS_OR_SKIP(root, "");
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && IsCorpusTrace(it->path()) && it->file_size(ec) < kMaxCorpusFileBytes)
      files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  int round_tripped = 0;
  for (const auto& path : files) {
    auto r = Analyze({path});
    if (!r.ok()) continue;
    testing::ExpectJsonRoundTrip(*r, path);
    ++round_tripped;
  }
  EXPECT_GE(round_tripped, 30) << "of " << files.size() << " files";
}

}  // namespace
}  // namespace stepdoctor
