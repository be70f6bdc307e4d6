// Lanes written twice (a TF1 timeline whose step stats were merged with themselves holds each
// device's lanes several times under new pids): kept once, so operators are not counted again.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::X;

// One TF1 CPU sess.run (three ops on one Compute lane) written `copies` times, each copy under
// its own pid; with `shift_us`, each copy starts that much later (a second run, not a copy).
std::string Tf1Copies(int copies, double shift_us = 0) {
  std::string ev;
  for (int c = 0; c < copies; ++c) {
    const int pid = 1 + 3 * c;
    ev += ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
          ",\"args\":{\"name\":\"/job:localhost/replica:0/task:0/cpu:0 Compute\"}}";
    const double t = c * shift_us;
    ev += X("Op", "RandomStandardNormal", pid, 0, t + 10, 400000);
    ev += X("Op", "MatMul", pid, 0, t + 400020, 600000);
    ev += X("Op", "Sum", pid, 0, t + 1000030, 50000);
  }
  return "{\"traceEvents\":[" + ev.substr(1) + "]}";
}

int64_t OpNs(const Trace& t, const std::string& name) {
  int64_t ns = 0;
  for (const Timeline& tl : t.timelines)
    for (size_t i = 0; i < tl.ev.size(); ++i)
      if (t.str(tl.ev.name[i]) == name) ns += tl.ev.dur_ns[i];
  return ns;
}

TEST(DuplicateLanes, CopiesAreKeptOnceAndNoted) {
  Trace t = testing::ImportChrome(Tf1Copies(5));
  EXPECT_EQ(OpNs(t, "MatMul"), 600'000'000);  // once, not five times
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kDuplicateLane), 4u);
  Report r = AnalyzeTrace(t);
  ASSERT_FALSE(r.top_ops.empty());
  for (const auto& op : r.top_ops) EXPECT_LE(op.total_ms, 600.0 + 1e-6) << op.name;
}

TEST(DuplicateLanes, TheSameOpsAtOtherTimesAreNotCopies) {
  Trace t = testing::ImportChrome(Tf1Copies(2, /*shift_us=*/2'000'000));  // two runs, one after the other
  EXPECT_EQ(OpNs(t, "MatMul"), 1'200'000'000);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kDuplicateLane), 0u);
}

// TF1's stream:all holds the same kernels as a lone stream: alike, but another lane, kept.
TEST(DuplicateLanes, LanesOfOtherNamesAreNeverCopies) {
  std::string ev;
  for (const char* lane : {"/device:GPU:0/stream:all Compute", "/device:GPU:0/stream:20 Compute"}) {
    const int pid = lane[21] == 'a' ? 5 : 6;
    ev += ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) + ",\"args\":{\"name\":\"" +
          lane + "\"}}";
    for (int k = 0; k < 4; ++k) ev += X("Op", "MatMul", pid, 0, 100 + k * 50, 20);
  }
  Trace t = testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}");
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kDuplicateLane), 0u);
  EXPECT_EQ(OpNs(t, "MatMul"), 2 * 4 * 20'000);
}

}  // namespace
}  // namespace stepdoctor
