#include "stepdoctor/live/sample.h"

#include <time.h>

namespace stepdoctor::live {
namespace {
int64_t Now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

int64_t WallNowNs() { return Now(CLOCK_REALTIME); }
int64_t MonotonicNowNs() { return Now(CLOCK_MONOTONIC); }

}  // namespace stepdoctor::live
