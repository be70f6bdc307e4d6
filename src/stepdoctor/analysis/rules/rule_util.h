// Small helpers shared by the rules: share of step time, number formatting for evidence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "stepdoctor/analysis/signals.h"

namespace stepdoctor::rules {

// Share (0-100) of the mean step that category `c` takes.
inline double CategoryShare(const StepSignals& s, StepCategory c) {
  return s.mean_step_ms > 0 ? 100.0 * s.category_ms[int(c)] / s.mean_step_ms : 0;
}

inline std::string Ms(double ms) { return ms >= 100 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.1f} ms", ms); }
inline std::string Pct(double pct) { return fmt::format("{:.1f}%", pct); }
inline std::string Us(double us) { return fmt::format("{:.1f} us", us); }

// "up to 1.42x (if the input wait is fully hidden)"
inline std::string GainText(double factor, const char* condition) {
  return fmt::format("up to {:.2f}x faster steps {}", factor, condition);
}

}  // namespace stepdoctor::rules
