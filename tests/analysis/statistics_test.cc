// The one median and percentile the analyses share.
#include "stepdoctor/analysis/statistics.h"

#include <gtest/gtest.h>

namespace stepdoctor {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({}), 0.0);
  EXPECT_DOUBLE_EQ(Median({7}), 7.0);
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);  // the mean of the two middle values
  EXPECT_DOUBLE_EQ(Median({5, 5, 1, 9}), 5.0);
}

TEST(Statistics, NearestRankPercentile) {
  std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(Percentile(ten, 90), 9.0);
  EXPECT_DOUBLE_EQ(Percentile(ten, 100), 10.0);
  EXPECT_DOUBLE_EQ(Percentile(ten, 0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile({}, 50), 0.0);
}

TEST(Statistics, MedianWithRangeAndItsConfidence) {
  MedianRange r = MedianWithRange({9, 11, 10});
  EXPECT_DOUBLE_EQ(r.median, 10.0);
  EXPECT_DOUBLE_EQ(r.low, 9.0);
  EXPECT_DOUBLE_EQ(r.high, 11.0);
  EXPECT_DOUBLE_EQ(MedianWithRange({}).median, 0.0);
  EXPECT_DOUBLE_EQ(MedianRangeConfidence(1), 0.0);
  EXPECT_DOUBLE_EQ(MedianRangeConfidence(3), 0.75);
  EXPECT_DOUBLE_EQ(MedianRangeConfidence(5), 0.9375);
}

}  // namespace
}  // namespace stepdoctor
