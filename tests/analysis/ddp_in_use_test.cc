// Communication advice where the trace shows DistributedDataParallel already wrapping the model
// (its forward range): no wrapping again, the lever is syncing less often; without the range the
// wrapper is advised.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::X;

// CPU-only steps of 10 ms: 2 ms of forward, then 7 ms waiting in gloo's all-reduce.
Report GlooSteps(bool ddp) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    const double t = i * 10'000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10'000);
    if (ddp) ev += X("user_annotation", "DistributedDataParallel.forward", 1, 1, t + 100, 2'000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + 200, 1'800);
    ev += X("cpu_op", "gloo:all_reduce", 1, 1, t + 2'500, 7'000);
  }
  return AnalyzeTrace(testing::ImportChrome(Doc(ev)));
}

TEST(DdpInUse, CommunicationAdviceDoesNotWrapAgainBothSides) {
  const Report wrapped = GlooSteps(true), bare = GlooSteps(false);
  const Finding* f = testing::FindFinding(wrapped, "collective_bound");
  const Finding* g = testing::FindFinding(bare, "collective_bound");
  ASSERT_NE(f, nullptr) << wrapped.verdict.summary;
  ASSERT_NE(g, nullptr) << bare.verdict.summary;
  EXPECT_EQ(f->fix.pytorch.find("DistributedDataParallel(model"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.pytorch.find("no_sync()"), std::string::npos);
  EXPECT_NE(testing::EvidenceText(*f).find("DistributedDataParallel"), std::string::npos);
  EXPECT_NE(g->fix.pytorch.find("DistributedDataParallel(model"), std::string::npos) << g->fix.pytorch;
}

}  // namespace
}  // namespace stepdoctor
