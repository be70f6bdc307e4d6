// ScalarsSummary -> GitHub-flavoured Markdown, for a pull request or a CI job summary.
#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/scalars_render.h"

namespace stepdoctor {

using render::MdCode;
using render::MdText;

std::string RenderScalarsMarkdown(const ScalarsSummary& s, const RenderOptions&) {
  std::string out = "## stepdoctor scalars\n\n";
  if (s.tags.empty()) {
    out += fmt::format("No scalars found in the event files read ({} files).\n", s.inputs.size());
  } else {
    out += "| Run | Tag | Count | First step | Last step | Last value | Min | Trend | Steps/s |\n"
           "|---|---|---:|---:|---:|---:|---:|---|---:|\n";
    for (const auto& g : s.tags)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", MdText(g.run), MdCode(g.tag), g.count,
                         g.first_step, g.last_step, ScalarValueText(g.last_value), ScalarValueText(g.min_value),
                         ScalarTrendText(g), g.steps_per_second ? fmt::format("{:.3g}", *g.steps_per_second) : "–");
    bool any_stalls = false;
    for (const auto& run : s.runs) {
      if (run.stalls.empty()) continue;
      if (!any_stalls) out += "\n### Stalls\n";
      any_stalls = true;
      out += fmt::format("\n**{}**: {}\n\n", MdText(run.run), MdText(ScalarStallsText(s, run)));
      for (const auto& st : run.stalls) out += fmt::format("- before step {}: {:.1f} s gap\n", st.step, st.gap_s);
    }
  }
  if (!s.notes.empty()) {
    out += "\n### Skipped\n\n";
    for (const auto& n : s.notes) out += "- " + MdText(n) + "\n";
  }
  return out;
}

}  // namespace stepdoctor
