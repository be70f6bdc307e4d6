// BoundNear, the search BindFlows uses for each flow's slice: the same index as
// std::upper_bound / std::lower_bound from any hint, on columns with repeated starts.
#include "stepdoctor/importers/chrome/chrome_flows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace stepdoctor::chrome {
namespace {

TEST(BoundNear, AgreesWithTheStandardSearchesFromAnyHint) {
  std::mt19937 rng(3);
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> st(std::uniform_int_distribution<size_t>(0, 70)(rng));
    for (auto& v : st) v = std::uniform_int_distribution<int64_t>(0, 40)(rng);  // repeats included
    std::sort(st.begin(), st.end());
    for (int64_t ts = -2; ts <= 42; ++ts)
      for (size_t hint = 0; hint <= st.size() + 2; ++hint) {
        EXPECT_EQ(BoundNear(st, ts, true, hint), size_t(std::upper_bound(st.begin(), st.end(), ts) - st.begin()));
        EXPECT_EQ(BoundNear(st, ts, false, hint), size_t(std::lower_bound(st.begin(), st.end(), ts) - st.begin()));
      }
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace stepdoctor::chrome
