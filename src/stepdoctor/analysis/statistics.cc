#include "stepdoctor/analysis/statistics.h"

#include <algorithm>
#include <cmath>

namespace stepdoctor {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (n % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);  // the largest below mid
  return 0.5 * (lower + upper);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * double(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

MedianRange MedianWithRange(const std::vector<double>& v) {
  if (v.empty()) return {};
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {Median(v), *lo, *hi};
}

double MedianRangeConfidence(size_t n) { return n < 2 ? 0.0 : 1.0 - std::ldexp(1.0, 1 - int(n)); }

}  // namespace stepdoctor
