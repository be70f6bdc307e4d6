#include "stepdoctor/live/sample.h"

#include <time.h>

namespace stepdoctor::live {
namespace {
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
int64_t Now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

std::string_view SeriesUnit(std::string_view name) {
  if (EndsWith(name, "_pct")) return "%";
  if (EndsWith(name, "_bytes_per_s")) return "bytes/s";
  if (EndsWith(name, "_bytes")) return "bytes";
  if (EndsWith(name, "_per_s")) return "1/s";
  if (EndsWith(name, "_w")) return "W";
  if (EndsWith(name, "_mhz")) return "MHz";
  return "count";
}

int64_t WallNowNs() { return Now(CLOCK_REALTIME); }
int64_t MonotonicNowNs() { return Now(CLOCK_MONOTONIC); }

}  // namespace stepdoctor::live
