// The statistics analyses share, defined once: median (the mean of the two middle values for an
// even count) and nearest-rank percentile. Both take their input by value (they reorder it) and
// return 0 for an empty input.
#pragma once

#include <vector>

namespace stepdoctor {

double Median(std::vector<double> v);
// Nearest-rank percentile, p in 0..100 (p90 of 10 values is the 9th smallest).
double Percentile(std::vector<double> v, double p);

}  // namespace stepdoctor
