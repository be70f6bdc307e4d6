// The table of scalars output formats, and phrases the scalars renderers share.
#include <fmt/format.h>

#include <cmath>

#include "stepdoctor/render/scalars_render.h"

namespace stepdoctor {
namespace {

struct Entry {
  const char* name;
  ScalarsRenderer fn;
};

const Entry kScalarsRenderers[] = {
    {"text", &RenderScalarsText},
    {"json", &RenderScalarsJson},
    {"md", &RenderScalarsMarkdown},
};

}  // namespace

ScalarsRenderer FindScalarsRenderer(const std::string& format) {
  for (const auto& e : kScalarsRenderers)
    if (format == e.name) return e.fn;
  return nullptr;
}

std::vector<std::string> ScalarsRendererNames() {
  std::vector<std::string> out;
  for (const auto& e : kScalarsRenderers) out.push_back(e.name);
  return out;
}

std::string ScalarTrendText(const ScalarTagSummary& g) {
  switch (g.trend) {
    case ScalarTrend::kTooFewPoints: return "-";
    case ScalarTrend::kFlat: return "flat";
    case ScalarTrend::kFalling: return fmt::format("falling {:.0f}%", g.trend_change_pct.value_or(0));
    case ScalarTrend::kRising: return fmt::format("rising +{:.0f}%", g.trend_change_pct.value_or(0));
  }
  return "-";
}

std::string ScalarValueText(double v) {
  double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e6)) return fmt::format("{:.4g}", v);
  return fmt::format("{:.4f}", v);
}

std::string ScalarStallsText(const ScalarsSummary& s, const ScalarRunStalls& run) {
  std::string out = fmt::format("{} stalls (gaps >= {:.0f}x the median {:.3f} s per step), {:.1f} s lost ({:.1f}% of {:.0f} s)",
                                run.stalls.size(), s.stall_factor, run.seconds_per_step, run.lost_s,
                                run.stall_share_pct, run.wall_s);
  if (run.period_steps > 0) out += fmt::format(", every {} steps: checkpoint or evaluation cost", run.period_steps);
  return out;
}

}  // namespace stepdoctor
