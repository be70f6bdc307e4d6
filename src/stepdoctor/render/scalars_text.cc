// ScalarsSummary -> the text table `stepdoctor scalars` prints: one row per run and tag, then
// each run's stalls, then what was skipped.
#include <fmt/format.h>

#include "stepdoctor/render/scalars_render.h"

namespace stepdoctor {

// Stalls listed under each run; the rest are in the count (and in the JSON).
constexpr size_t kTextStallsShown = 5;

std::string RenderScalarsText(const ScalarsSummary& s, const RenderOptions&) {
  std::string out;
  if (s.tags.empty()) {
    out += fmt::format("no scalars found in the event files read ({} files)\n", s.inputs.size());
  } else {
    out += fmt::format("{:<16} {:<28} {:>6} {:>8} {:>8} {:>12} {:>12} {:<14} {:>8}\n", "run", "tag", "count", "first",
                       "last", "last value", "min", "trend", "steps/s");
    for (const auto& g : s.tags)
      out += fmt::format("{:<16} {:<28} {:>6} {:>8} {:>8} {:>12} {:>12} {:<14} {:>8}\n", g.run, g.tag, g.count,
                         g.first_step, g.last_step, ScalarValueText(g.last_value), ScalarValueText(g.min_value),
                         ScalarTrendText(g), g.steps_per_second ? fmt::format("{:.3g}", *g.steps_per_second) : "-");
    for (const auto& run : s.runs) {
      if (run.stalls.empty()) continue;
      out += fmt::format("\nrun {}: {}\n", run.run, ScalarStallsText(s, run));
      for (size_t i = 0; i < run.stalls.size() && i < kTextStallsShown; ++i)
        out += fmt::format("  before step {}: {:.1f} s gap\n", run.stalls[i].step, run.stalls[i].gap_s);
    }
  }
  for (const auto& n : s.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace stepdoctor
