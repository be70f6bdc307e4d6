// One sample: a timestamp and named values. Series names and units are documented in
// docs/samples-format.md and defined in model/series_names.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepdoctor/model/series_names.h"

namespace stepdoctor::live {

struct Sample {
  int64_t ts_ns = 0;  // nanoseconds since the Unix epoch (CLOCK_REALTIME), like Kineto's timestamps
  std::vector<std::pair<std::string, double>> values;

  void Add(std::string_view name, double v) { values.emplace_back(std::string(name), v); }
  // The value of `name`, or `fallback` when the sample lacks it.
  double Get(std::string_view name, double fallback = -1) const {
    for (const auto& [n, v] : values)
      if (n == name) return v;
    return fallback;
  }
};

// Series names and their units are defined once, in model/series_names.h.
using series::SeriesUnit;

// Nanoseconds since the epoch now (CLOCK_REALTIME) and on a monotonic clock.
int64_t WallNowNs();
int64_t MonotonicNowNs();

}  // namespace stepdoctor::live
