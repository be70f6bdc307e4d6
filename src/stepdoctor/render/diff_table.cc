// The table of diff output formats, and phrases every diff renderer shares.
#include <fmt/format.h>

#include "stepdoctor/render/diff_render.h"

namespace stepdoctor {
namespace {

struct Entry {
  const char* name;
  DiffRenderer fn;
};

const Entry kDiffRenderers[] = {
    {"text", &RenderDiffText},
    {"json", &RenderDiffJson},
    {"md", &RenderDiffMarkdown},
    {"html", &RenderDiffHtml},
};

}  // namespace

DiffRenderer FindDiffRenderer(const std::string& format) {
  for (const auto& e : kDiffRenderers)
    if (format == e.name) return e.fn;
  return nullptr;
}

std::vector<std::string> DiffRendererNames() {
  std::vector<std::string> out;
  for (const auto& e : kDiffRenderers) out.push_back(e.name);
  return out;
}

std::string DiffSpeedText(const DiffReport& d) {
  if (!d.speedup) return "no step time after";
  double x = *d.speedup;
  if (x > 0.995 && x < 1.005) return "no change";
  if (x >= 1) return fmt::format("{:.2f}x faster", x);
  return fmt::format("{:.2f}x slower", 1.0 / x);
}

std::string DiffVerdictText(const DiffReport& d) {
  std::string b = BottleneckName(d.before.verdict.bottleneck), a = BottleneckName(d.after.verdict.bottleneck);
  return d.verdict_changed ? b + " -> " + a : b + " (unchanged)";
}

}  // namespace stepdoctor
