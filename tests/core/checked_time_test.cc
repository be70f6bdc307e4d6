// The time range and the checked conversions every importer uses (core/checked_time.h), on
// both sides of each bound.
#include "stepdoctor/core/checked_time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace stepdoctor {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

TEST(CheckedTime, RangeIsBelowTwoToThe62) {
  EXPECT_EQ(kMaxTimeNs, (int64_t{1} << 62) - 1);
  EXPECT_TRUE(TimeInRange(kMaxTimeNs));
  EXPECT_TRUE(TimeInRange(-kMaxTimeNs));
  EXPECT_TRUE(TimeInRange(0));
  EXPECT_FALSE(TimeInRange(kMaxTimeNs + 1));
  EXPECT_FALSE(TimeInRange(-kMaxTimeNs - 1));
  EXPECT_FALSE(TimeInRange(kI64Max));
  EXPECT_FALSE(TimeInRange(kI64Min));
  // What the bound is for: the sum and the difference of any two in-range times fit in int64.
  EXPECT_TRUE(CheckedAdd(kMaxTimeNs, kMaxTimeNs).has_value());
  EXPECT_TRUE(CheckedAdd(-kMaxTimeNs, -kMaxTimeNs).has_value());
  EXPECT_TRUE(CheckedSub(kMaxTimeNs, -kMaxTimeNs).has_value());
  EXPECT_TRUE(CheckedSub(-kMaxTimeNs, kMaxTimeNs).has_value());
  EXPECT_EQ(kMaxStepNumber, kMaxTimeNs);
}

TEST(CheckedTime, AddSubMulSayWhenTheyOverflow) {
  EXPECT_EQ(CheckedAdd(kI64Max - 1, 1), kI64Max);
  EXPECT_EQ(CheckedAdd(kI64Max, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kI64Min, -1), std::nullopt);
  EXPECT_EQ(CheckedSub(kI64Min + 1, 1), kI64Min);
  EXPECT_EQ(CheckedSub(kI64Min, 1), std::nullopt);
  EXPECT_EQ(CheckedSub(0, kI64Min), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{3037000499}, int64_t{3037000499}), int64_t{9223372030926249001});
  EXPECT_EQ(CheckedMul(int64_t{3037000500}, int64_t{3037000500}), std::nullopt);
  EXPECT_EQ(CheckedMul(-1, kI64Min), std::nullopt);
}

TEST(CheckedTime, SaturatingAddClampsAtInt64) {
  EXPECT_EQ(SaturatingAdd(1, 2), 3);
  EXPECT_EQ(SaturatingAdd(kI64Max - 1, 1), kI64Max);
  EXPECT_EQ(SaturatingAdd(kI64Max, 1), kI64Max);
  EXPECT_EQ(SaturatingAdd(kMaxTimeNs, kMaxTimeNs), 2 * kMaxTimeNs);
  EXPECT_EQ(SaturatingAdd(2 * kMaxTimeNs, kMaxTimeNs), kI64Max);
  EXPECT_EQ(SaturatingAdd(kI64Min, -1), kI64Min);
}

TEST(CheckedTime, AddToTimeKeepsTheResultInRange) {
  EXPECT_EQ(AddToTime(kMaxTimeNs - 10, 10), kMaxTimeNs);
  EXPECT_EQ(AddToTime(kMaxTimeNs - 10, 11), std::nullopt);
  EXPECT_EQ(AddToTime(-kMaxTimeNs + 10, -10), -kMaxTimeNs);
  EXPECT_EQ(AddToTime(-kMaxTimeNs + 10, -11), std::nullopt);
  // An offset that brings an out-of-range base back in is fine; one that overflows is not.
  EXPECT_EQ(AddToTime(kI64Max, -kI64Max), 0);
  EXPECT_EQ(AddToTime(kI64Max - 150'000'000, 250'000'000), std::nullopt);
}

TEST(CheckedTime, SecondsAndMicrosToNanoseconds) {
  EXPECT_EQ(SecondsToNs(1.5), 1'500'000'000);
  EXPECT_EQ(SecondsToNs(-2.0), -2'000'000'000);
  EXPECT_EQ(SecondsToNs(1591748100.5), int64_t{1591748100500000000});
  EXPECT_EQ(MicrosToNs(2.5), 2500);
  EXPECT_EQ(MicrosToNs(1.2345), 1235);  // rounded to the nearest
  // The bound in seconds: 2^62 ns = 4611686018.427387904 s.
  EXPECT_TRUE(SecondsToNs(4611686018.0).has_value());
  EXPECT_TRUE(SecondsToNs(-4611686018.0).has_value());
  EXPECT_EQ(SecondsToNs(4611686019.0), std::nullopt);
  EXPECT_EQ(SecondsToNs(-4611686019.0), std::nullopt);
  EXPECT_EQ(SecondsToNs(1e12), std::nullopt);  // SageMaker's year-33658 timestamp
  EXPECT_EQ(MicrosToNs(4.6e15).value_or(0), int64_t{4600000000000000000});
  EXPECT_EQ(MicrosToNs(4.7e15), std::nullopt);
  EXPECT_EQ(SecondsToNs(std::nan("")), std::nullopt);
  EXPECT_EQ(SecondsToNs(std::numeric_limits<double>::infinity()), std::nullopt);
  EXPECT_EQ(SecondsToNs(-std::numeric_limits<double>::infinity()), std::nullopt);
  EXPECT_EQ(UnitsToNs(2.0, 60e9), 120'000'000'000);
}

TEST(CheckedTime, EpochSecondsToNanoseconds) {
  EXPECT_EQ(EpochSecondsToNs(1700000000, 5), int64_t{1700000000000000005});
  EXPECT_TRUE(EpochSecondsToNs(4611686018, 427387903).has_value());   // 2116-02-20 23:53:38.427
  EXPECT_EQ(EpochSecondsToNs(4611686018, 427387904), std::nullopt);   // 2^62 ns exactly
  EXPECT_TRUE(EpochSecondsToNs(-4611686018, 0).has_value());          // 1823-11-12
  EXPECT_EQ(EpochSecondsToNs(-4611686019, 0), std::nullopt);
  EXPECT_EQ(EpochSecondsToNs(-62000000000, 0), std::nullopt);         // the year 4: x 1e9 overflows int64
  EXPECT_EQ(EpochSecondsToNs(216608000000, 0), std::nullopt);         // the year 8834
}

TEST(CheckedTime, DoublesToInt64) {
  EXPECT_EQ(RoundToInt64(2.5), 3);
  EXPECT_EQ(RoundToInt64(-2.5), -3);
  EXPECT_EQ(RoundToInt64(143771.0 * 1048576.0), int64_t{150754820096});
  EXPECT_EQ(RoundToInt64(9223372036854774784.0), int64_t{9223372036854774784});  // the last double below 2^63
  EXPECT_EQ(RoundToInt64(9223372036854775808.0), std::nullopt);                    // 2^63
  EXPECT_EQ(RoundToInt64(-9223372036854775808.0), kI64Min);                         // -2^63 fits
  EXPECT_EQ(RoundToInt64(1e50 * 1048576.0), std::nullopt);                          // 1e50 MiB
  EXPECT_EQ(RoundToInt64(std::nan("")), std::nullopt);

  EXPECT_EQ(ExactInt64(3.0), 3);
  EXPECT_EQ(ExactInt64(1e3), 1000);
  EXPECT_EQ(ExactInt64(-9223372036854775808.0), kI64Min);
  EXPECT_EQ(ExactInt64(1.5), std::nullopt);
  EXPECT_EQ(ExactInt64(1e300), std::nullopt);
  EXPECT_EQ(ExactInt64(-1e300), std::nullopt);
  EXPECT_EQ(ExactInt64(18446744073709551615.0), std::nullopt);  // 2^64 - 1, as a double 2^64
  EXPECT_EQ(ExactInt64(-1e19), std::nullopt);
  EXPECT_EQ(ExactInt64(std::numeric_limits<double>::infinity()), std::nullopt);
}

}  // namespace
}  // namespace stepdoctor
