// No report advises turning on what its own coverage says is already in use (CUDA graphs,
// torch.compile, TorchScript, XLA, autocast, DataLoader workers, tf.data prefetch), over every
// trace the project ships and, where present, every trace of ../shared/corpus.
#include <gtest/gtest.h>

#include <filesystem>

#include "advice_vs_applied.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;

bool IsTraceName(const std::string& n) {
  return n.find(".json") != std::string::npos || (n.size() > 3 && n.compare(n.size() - 3, 3, ".pb") == 0) ||
         n.find("tfevents") != std::string::npos || (n.size() > 3 && n.compare(n.size() - 3, 3, ".gz") == 0);
}

// Diagnoses each trace file under `root` alone; files stepdoctor does not read are passed over.
void CheckEveryTrace(const std::string& root) {
  int read = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || !IsTraceName(e.path().filename().string())) continue;
    auto imported = ImportPaths({e.path().string()});
    if (!imported.ok()) continue;
    ++read;
    Report r = AnalyzeTrace(imported->trace);
    for (const auto& v : testing::AdviceRepeatingApplied(r)) ADD_FAILURE() << e.path().string() << ": " << v;
  }
  EXPECT_GT(read, 0) << root;
}

TEST(AdviceVsApplied, ExamplesNeverAdviseWhatIsInUse) { CheckEveryTrace(testing::SourcePath("examples")); }

TEST(AdviceVsApplied, CorpusNeverAdvisesWhatIsInUse) {
  SD_CORPUS_OR_SKIP(corpus, "");
  CheckEveryTrace(corpus);
}

// The check itself: advice for what is applied is caught, advice for what is not is not.
TEST(AdviceVsApplied, CatchesCompileAdviceWhereTorchScriptRuns) {
  Report r;
  Finding f;
  f.id = "host_bound";
  f.fix.pytorch = "model = torch.compile(model)";
  r.findings.push_back(f);
  EXPECT_TRUE(testing::AdviceRepeatingApplied(r).empty());
  r.coverage.applied = {"TorchScript"};
  EXPECT_EQ(testing::AdviceRepeatingApplied(r).size(), 1u);
}

}  // namespace
}  // namespace stepdoctor
