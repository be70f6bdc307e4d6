// DiffReport -> GitHub-flavoured Markdown, for a pull-request comment on a change's effect.
#include <fmt/format.h>

#include "stepdoctor/render/diff_render.h"
#include "stepdoctor/render/html_util.h"

namespace stepdoctor {
namespace {

using render::FormatCount;
using render::FormatMs;
using render::FormatPct;
using render::FormatSigned;
using render::MdCode;
using render::MdText;

std::string Change(const std::optional<double>& pct) { return pct ? FormatSigned(*pct, "%") : "new"; }

std::string SeverityOf(const std::optional<FindingSeverity>& s) { return s ? FindingSeverityName(*s) : "–"; }

std::string Group(const char* title, const std::vector<NameDelta>& v, int total, const std::string& unit) {
  if (v.empty()) return "";
  std::string s = fmt::format("**{}** ({}{})\n\n| Name | Before {} | After {} | Change | Count before → after |\n"
                              "|---|---:|---:|---:|---:|\n",
                              title, total, total > static_cast<int>(v.size()) ? fmt::format(", top {}", v.size()) : "",
                              unit, unit);
  for (const auto& n : v)
    s += fmt::format("| {} | {} | {} | {} ({}) | {} → {} |\n", MdCode(render::Shorten(n.name, 100)),
                     FormatMs(n.before_ms), FormatMs(n.after_ms), FormatSigned(n.delta_ms), Change(n.change_pct),
                     FormatCount(n.before_count), FormatCount(n.after_count));
  return s + "\n";
}

std::string Names(const char* title, const NameChanges& c, const std::string& unit) {
  std::string body = Group("Slower", c.slower, c.slower_total, unit) + Group("Faster", c.faster, c.faster_total, unit) +
                     Group("Added", c.added, c.added_total, unit) + Group("Removed", c.removed, c.removed_total, unit);
  if (body.empty()) body = "No change past the thresholds.\n\n";
  return fmt::format("<details><summary>{}: {} → {} {}</summary>\n\n{}</details>\n\n", title,
                     FormatMs(c.before_total_ms), FormatMs(c.after_total_ms), unit, body);
}

}  // namespace

std::string RenderDiffMarkdown(const DiffReport& d, const RenderOptions&) {
  std::string s = fmt::format("## stepdoctor diff: median step {} ms → {} ms ({})\n\n", FormatMs(d.before.median_step_ms),
                              FormatMs(d.after.median_step_ms), DiffSpeedText(d));
  s += fmt::format("| | Before | After | Change |\n|---|---:|---:|---:|\n");
  s += fmt::format("| Median step | {} ms | {} ms | {} ms ({}) |\n", FormatMs(d.before.median_step_ms),
                   FormatMs(d.after.median_step_ms), FormatSigned(d.step_delta_ms), Change(d.step_change_pct));
  s += fmt::format("| Steps | {} | {} | |\n", d.before.step_count, d.after.step_count);
  s += fmt::format("| Verdict | {} | {} | {} |\n\n", MdCode(BottleneckName(d.before.verdict.bottleneck)),
                   MdCode(BottleneckName(d.after.verdict.bottleneck)), d.verdict_changed ? "**changed**" : "same");
  s += fmt::format("- Before: {}\n- After: {}\n\n", MdText(d.before.verdict.summary), MdText(d.after.verdict.summary));

  if (!d.categories.empty()) {
    s += "### Step-time breakdown (ms per step)\n\n| Category | Before | After | Change | Share before → after |\n"
         "|---|---:|---:|---:|---:|\n";
    for (const auto& c : d.categories)
      s += fmt::format("| {} | {} | {} | {} ({}) | {} → {} ({} pp) |\n", MdText(c.category), FormatMs(c.before_ms),
                       FormatMs(c.after_ms), FormatSigned(c.delta_ms), Change(c.change_pct), FormatPct(c.before_pct),
                       FormatPct(c.after_pct), FormatSigned(c.delta_pp));
    s += "\n";
  }
  if (!d.findings.empty()) {
    s += "### Findings\n\n| Finding | Before | After | |\n|---|---|---|---|\n";
    for (const auto& f : d.findings)
      s += fmt::format("| {} | {} | {} | {} |\n", MdCode(f.id), SeverityOf(f.before), SeverityOf(f.after),
                       MdText(f.after_title));
    s += "\n";
  }
  s += Names("Kernels by device time", d.kernels, d.unit);
  s += Names("Operators by host time (inclusive)", d.ops, d.unit);
  for (const auto& n : d.notes) s += "- " + MdText(n) + "\n";
  for (const auto& n : d.diagnostics) s += "- " + MdText(n) + "\n";
  if (!d.notes.empty() || !d.diagnostics.empty()) s += "\n";
  s += fmt::format("<sub>stepdoctor {}</sub>\n", MdText(d.tool_version));
  return s;
}

}  // namespace stepdoctor
