// SortRuns against std::sort: inputs made of ascending runs (its shape), of many short runs and
// of none, with repeated values.
#include "stepdoctor/analysis/sort_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>

namespace stepdoctor {
namespace {

TEST(SortRuns, SameOrderAsStdSort) {
  std::mt19937 rng(21);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::pair<int64_t, int64_t>> v;
    const int runs = std::uniform_int_distribution<int>(0, 9)(rng);
    const int run_len = std::uniform_int_distribution<int>(0, round % 2 ? 60 : 4)(rng);  // long runs, or many short
    for (int r = 0; r < runs; ++r) {
      std::vector<std::pair<int64_t, int64_t>> run;
      for (int k = 0; k < run_len; ++k)
        run.push_back({std::uniform_int_distribution<int64_t>(0, 50)(rng), std::uniform_int_distribution<int64_t>(0, 3)(rng)});
      std::sort(run.begin(), run.end());
      v.insert(v.end(), run.begin(), run.end());
    }
    auto want = v;
    std::sort(want.begin(), want.end());
    SortRuns(v);
    EXPECT_EQ(v, want);
    if (HasFailure()) break;
  }
  std::vector<int64_t> empty;
  SortRuns(empty);
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace stepdoctor
