// The one range every time in the model lies in, and the checked conversions and arithmetic
// importers use to get there (a double of seconds or microseconds, a timestamp plus an offset).
//
// Every start, end and sample time a Trace holds lies in [-kMaxTimeNs, kMaxTimeNs], so the sum
// or difference of any two of them fits in int64 and analyses can add and subtract times
// without checking. Step numbers are held to the same bound, for the same reason. Importers
// convert with these helpers and count what falls outside (ImportIssue::kTimeOutOfRange,
// kValueOutOfRange, kIdNotInt64) instead of letting a cast or a sum overflow.
#pragma once

#include <cstdint>
#include <optional>

namespace stepdoctor {

// |t| < 2^62 ns (about 146 years either side of 1970: 1823-2116), so that two in-range times
// add or subtract to at most 2^63 - 2. Also the bound on step numbers.
inline constexpr int64_t kMaxTimeNs = (int64_t{1} << 62) - 1;
inline constexpr int64_t kMaxStepNumber = kMaxTimeNs;

constexpr bool TimeInRange(int64_t t_ns) { return t_ns >= -kMaxTimeNs && t_ns <= kMaxTimeNs; }

// What reading a time (or a duration) from an input gave.
enum class TimeParse : uint8_t {
  kAbsent,      // no value where one may be (no ts key)
  kOk,          // a time in range
  kNotATime,    // a value, but not a number or date
  kOutOfRange,  // a number or date whose nanoseconds lie past +-kMaxTimeNs
};

// int64 arithmetic that says when it overflows instead of wrapping (nullopt).
[[nodiscard]] std::optional<int64_t> CheckedAdd(int64_t a, int64_t b);
[[nodiscard]] std::optional<int64_t> CheckedSub(int64_t a, int64_t b);
[[nodiscard]] std::optional<int64_t> CheckedMul(int64_t a, int64_t b);
// a + b clamped to int64: for totals of many durations, which overlapping events can push past
// int64 even when each one is in range.
[[nodiscard]] int64_t SaturatingAdd(int64_t a, int64_t b);

// t + d where the result is a time in range (an event's end, a timestamp plus an offset);
// nullopt when the sum overflows or leaves the range.
[[nodiscard]] std::optional<int64_t> AddToTime(int64_t t_ns, int64_t d_ns);

// A number of `ns_per_unit` units (seconds: 1e9, microseconds: 1e3) as nanoseconds, rounded
// to the nearest; nullopt for NaN, infinities and anything whose |result| exceeds kMaxTimeNs.
// Durations and intervals use the same range as times.
[[nodiscard]] std::optional<int64_t> UnitsToNs(double v, double ns_per_unit);
[[nodiscard]] inline std::optional<int64_t> SecondsToNs(double s) { return UnitsToNs(s, 1e9); }
[[nodiscard]] inline std::optional<int64_t> MicrosToNs(double us) { return UnitsToNs(us, 1e3); }

// Whole seconds since the epoch (a parsed date) plus a fraction in nanoseconds; nullopt outside
// the range (dates before November 1823 or after February 2116).
[[nodiscard]] std::optional<int64_t> EpochSecondsToNs(int64_t seconds, int64_t frac_ns);

// A double as an int64: rounded to the nearest, nullopt for NaN, infinities and values past
// int64 (a memory size of 1e50 MiB).
[[nodiscard]] std::optional<int64_t> RoundToInt64(double v);
// A double that must be a whole number in int64 (an id written as 3.0 or 1e3); nullopt for
// fractions, NaN, infinities and values past int64 (a pid of 1e300, a tid of 2^64 - 1).
[[nodiscard]] std::optional<int64_t> ExactInt64(double v);

}  // namespace stepdoctor
