#include "stepdoctor/core/checked_time.h"

#include <cmath>
#include <limits>

namespace stepdoctor {
namespace {

// 2^63 as a double: exactly representable, unlike INT64_MAX (which rounds up to it). A double
// d converts to int64 without overflow iff -2^63 <= d < 2^63.
constexpr double kTwo63 = 9223372036854775808.0;

bool FitsInt64(double v) { return v >= -kTwo63 && v < kTwo63; }

}  // namespace

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

std::optional<int64_t> AddToTime(int64_t t_ns, int64_t d_ns) {
  auto r = CheckedAdd(t_ns, d_ns);
  if (!r || !TimeInRange(*r)) return std::nullopt;
  return r;
}

std::optional<int64_t> UnitsToNs(double v, double ns_per_unit) {
  const double ns = std::round(v * ns_per_unit);
  // |ns| < 2^62 (exact as a double); NaN fails both comparisons.
  constexpr double kLimit = double(kMaxTimeNs + 1);
  if (!(ns > -kLimit && ns < kLimit)) return std::nullopt;
  return static_cast<int64_t>(ns);
}

std::optional<int64_t> EpochSecondsToNs(int64_t seconds, int64_t frac_ns) {
  auto ns = CheckedMul(seconds, 1000000000);
  if (!ns) return std::nullopt;
  return AddToTime(*ns, frac_ns);
}

std::optional<int64_t> RoundToInt64(double v) {
  const double r = std::round(v);
  if (!FitsInt64(r)) return std::nullopt;
  return static_cast<int64_t>(r);
}

std::optional<int64_t> ExactInt64(double v) {
  if (!FitsInt64(v) || std::trunc(v) != v) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace stepdoctor
