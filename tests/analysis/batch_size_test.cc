// The samples a step reads, from the trace itself: the leading dimension of the batch's first
// copy after each DataLoader fetch (PyTorch's record_shapes), the figure most fetches agree on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/input_limit.h"
#include "stepdoctor/analysis/trace_to_batch_size.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/import_paths.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// Steps of 100 ms: a 30 ms DataLoader fetch, the batch and its labels moved with aten::to
// (shapes as record_shapes writes them, one batch per entry of `batches`), a 60 ms operator.
// Without `shapes`, no Input Dims.
std::string ShapedLoop(const std::vector<int>& batches, bool shapes = true) {
  std::string ev;
  double t = 0;
  for (size_t i = 0; i < batches.size(); ++i, t += 100000) {
    const std::string b = std::to_string(batches[i]);
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 100000);
    ev += X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, t, 30000);
    auto dims = [&](const std::string& d) { return shapes ? "{\"Input Dims\": " + d + "}" : std::string(); };
    ev += X("cpu_op", "aten::to", 1, 1, t + 30100, 500, dims("[[" + b + ", 3, 32, 32], [], [], [], []]"));
    ev += X("cpu_op", "aten::to", 1, 1, t + 30700, 100, dims("[[" + b + "], [], [], [], []]"));
    ev += X("cpu_op", "aten::conv2d", 1, 1, t + 31000, 60000, dims("[[7, 3, 32, 32], [16, 3, 3, 3]]"));
  }
  return Doc(ev);
}

TEST(BatchSize, LeadingDimension) {
  EXPECT_EQ(LeadingDimension("[[32, 3, 224, 224], [], []]"), 32);
  EXPECT_EQ(LeadingDimension("[[], [64]]"), 64);  // the first tensor with a dimension
  EXPECT_EQ(LeadingDimension("[[], []]"), 0);
  EXPECT_EQ(LeadingDimension("[]"), 0);
  EXPECT_EQ(LeadingDimension("not dims"), 0);
}

TEST(BatchSize, FromTheCopyAfterEachFetch) {
  Trace t = testing::ImportChrome(ShapedLoop({64, 64, 64, 40}));  // the last batch is short
  auto b = TraceToBatchSize(t, PrimaryWorker(t));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->samples, 64);
  EXPECT_EQ(b->fetches, 4);
  EXPECT_EQ(b->agreeing, 3);
  EXPECT_EQ(b->op, "aten::to");
  EXPECT_NE(b->Describe().find("after 3 of 4 DataLoader fetches"), std::string::npos) << b->Describe();
}

TEST(BatchSize, ShapesKeptOnTheBatchCopiesOnly) {
  Trace t = testing::ImportChrome(ShapedLoop({8}));
  bool found = false;
  const StringId key = t.strings.Find("Input Dims", &found);
  ASSERT_TRUE(found);
  int copies = 0, others = 0;
  for (const Timeline& tl : t.timelines)
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      const bool has = tl.FindArg(i, key) != nullptr;
      (t.str(tl.ev.name[i]) == "aten::to" ? copies : others) += has;
    }
  EXPECT_EQ(copies, 2);
  EXPECT_EQ(others, 0);  // the conv's shapes are not kept
}

TEST(BatchSize, NoShapesNoFigureAndTheDemandSaysWhy) {
  Trace t = testing::ImportChrome(ShapedLoop({64, 64, 64}, /*shapes=*/false));
  EXPECT_FALSE(TraceToBatchSize(t, PrimaryWorker(t)));
  auto d = TraceToInputDemand(t, 0);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("record_shapes=True"), std::string::npos) << d.message();
  // With shapes the demand needs no --samples-per-step, and says where the figure came from.
  Trace shaped = testing::ImportChrome(ShapedLoop({64, 64, 64}));
  auto e = TraceToInputDemand(shaped, 0);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->samples_per_step, 64);
  EXPECT_NEAR(e->consumed_samples_per_s, 640, 1);  // 64 a step, 10 steps/s
  EXPECT_NE(e->source.find("leading dimension of aten::to"), std::string::npos) << e->source;
  // A figure given wins.
  auto g = TraceToInputDemand(shaped, 16);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->samples_per_step, 16);
  EXPECT_TRUE(g->samples_from.empty());
}

// ResNet-50 in the PyTorch TensorBoard plugin's sample, recorded with record_shapes and a
// batch of 32 (its script's DataLoader): every fetch's copy shows it.
TEST(BatchSize, CorpusResnet50) {
  SD_CORPUS_OR_SKIP(path, "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz");
  auto imported = ImportPaths({path});
  ASSERT_TRUE(imported.ok()) << imported.message();
  auto b = TraceToBatchSize(imported->trace, PrimaryWorker(imported->trace));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->samples, 32);
  EXPECT_EQ(b->agreeing, b->fetches);
  EXPECT_GE(b->fetches, 5);
}

}  // namespace
}  // namespace stepdoctor
