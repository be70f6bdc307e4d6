#include <fmt/format.h>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

std::string OneStepCaveat(std::string_view source, int64_t number, double cold_startup_pct) {
  if (cold_startup_pct > 0)
    return fmt::format("one step, a first, cold pass: {:.1f}% of it is one-off start-up; alone, how steps vary cannot "
                       "be told",
                       cold_startup_pct);
  if (number >= 1 && source.find("ProfilerStep") != std::string_view::npos)
    return fmt::format("one step (ProfilerStep#{}): {} iteration{} ran before it under the profiler, so it is no "
                       "first, cold pass; alone, how steps vary cannot be told",
                       number, number, number == 1 ? "" : "s");
  return "one step: whether it is a warm-up pass (a first, cold call) cannot be told without others to compare";
}

}  // namespace stepdoctor
