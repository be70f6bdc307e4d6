// The statistics analyses share, defined once: median (the mean of the two middle values for an
// even count) and nearest-rank percentile. Both take their input by value (they reorder it) and
// return 0 for an empty input.
#pragma once

#include <cstddef>
#include <vector>

namespace stepdoctor {

double Median(std::vector<double> v);
// Nearest-rank percentile, p in 0..100 (p90 of 10 values is the 9th smallest).
double Percentile(std::vector<double> v, double p);

// The median of repeated measurements with the smallest and largest of them. For n
// independent values [low, high] is a distribution-free confidence interval for the true median
// (it misses only when all n fall on one side of it): MedianRangeConfidence(n) = 1 - 2^(1-n),
// 0.75 for 3 values, 0.9375 for 5, 0 for fewer than 2.
struct MedianRange {
  double median = 0, low = 0, high = 0;
};
MedianRange MedianWithRange(const std::vector<double>& v);
double MedianRangeConfidence(size_t n);

}  // namespace stepdoctor
