// Trace::Finalize orders each timeline by start, longest first, ties in arrival order (a stable
// sort), whether the events come in long runs already in order (merged) or scattered (sorted).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {
namespace {

TEST(TraceFinalizeOrder, StableByStartThenLongestFirst) {
  std::mt19937 rng(13);
  for (int round = 0; round < 200; ++round) {
    Trace trace;
    WorkerId w = trace.AddWorker(Worker{});
    TimelineId id = trace.AddTimeline(w, DeviceId{}, TimelineKind::kHostThread, 1, "t");
    std::vector<int64_t> start, dur;
    const int runs = std::uniform_int_distribution<int>(1, 6)(rng);
    const int run_len = std::uniform_int_distribution<int>(1, round % 2 ? 80 : 3)(rng);  // long runs, or short
    for (int r = 0; r < runs; ++r) {
      std::vector<std::pair<int64_t, int64_t>> run;
      for (int k = 0; k < run_len; ++k)
        run.push_back({std::uniform_int_distribution<int64_t>(0, 30)(rng), std::uniform_int_distribution<int64_t>(0, 3)(rng)});
      std::sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
      for (auto [s, d] : run) {
        start.push_back(s);
        dur.push_back(d);
      }
    }
    // Each event's name is its arrival index, so ties show their order.
    for (size_t i = 0; i < start.size(); ++i)
      trace.timeline(id).Add(start[i], dur[i], trace.strings.Intern(std::to_string(i)), EventKind::kOther);
    std::vector<uint32_t> want(start.size());
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(), [&](uint32_t a, uint32_t b) {
      return start[a] != start[b] ? start[a] < start[b] : dur[a] > dur[b];
    });
    trace.Finalize();
    const Timeline& t = trace.timeline(id);
    ASSERT_EQ(t.ev.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(trace.str(t.ev.name[i]), std::to_string(want[i])) << "at " << i;
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace stepdoctor
