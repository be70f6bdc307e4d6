// One sample: a timestamp and named values. Series names and units are documented in
// docs/samples-format.md; the unit follows from the name's suffix (SeriesUnit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepdoctor::live {

struct Sample {
  int64_t ts_ns = 0;  // nanoseconds since the Unix epoch (CLOCK_REALTIME), like Kineto's timestamps
  std::vector<std::pair<std::string, double>> values;

  void Add(std::string name, double v) { values.emplace_back(std::move(name), v); }
  // The value of `name`, or `fallback` when the sample lacks it.
  double Get(std::string_view name, double fallback = -1) const {
    for (const auto& [n, v] : values)
      if (n == name) return v;
    return fallback;
  }
};

// The unit of a series from its name's suffix: "_pct" -> "%", "_bytes_per_s" -> "bytes/s",
// "_bytes" -> "bytes", "_per_s" -> "1/s", "_w" -> "W", "_mhz" -> "MHz", otherwise "count".
std::string_view SeriesUnit(std::string_view name);

// Nanoseconds since the epoch now (CLOCK_REALTIME) and on a monotonic clock.
int64_t WallNowNs();
int64_t MonotonicNowNs();

}  // namespace stepdoctor::live
