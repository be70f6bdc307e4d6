// DiffReport -> one self-contained HTML page: step time and verdict before and after, the
// breakdown as paired bars, findings, and kernels/ops that were added, removed, slower, faster.
#include <fmt/format.h>

#include <algorithm>

#include "stepdoctor/render/diff_render.h"
#include "stepdoctor/render/html_svg.h"
#include "stepdoctor/render/html_util.h"

namespace stepdoctor {
namespace {

using render::Badge;
using render::FormatCount;
using render::FormatMs;
using render::FormatPct;
using render::FormatSigned;
using render::HtmlEscape;

std::string Change(const std::optional<double>& pct) { return pct ? FormatSigned(*pct, "%") : "new"; }

// A change coloured by direction: more time is worse.
std::string DeltaCell(double delta, const std::string& text) {
  const char* cls = delta > 0 ? "delta-up" : delta < 0 ? "delta-down" : "";
  return fmt::format("<td class=\"num {}\">{}</td>", cls, HtmlEscape(text));
}

std::string Inputs(const DiffSide& s) {
  std::string out;
  for (size_t i = 0; i < s.inputs.size(); ++i) out += (i ? ", " : "") + ("<code>" + HtmlEscape(s.inputs[i]) + "</code>");
  return out;
}

// <svg id="diff-breakdown-chart">: per category, a before bar over an after bar (ms per step).
std::string BreakdownPairsSvg(const std::vector<CategoryDelta>& cats) {
  if (cats.empty()) return "";
  double max = 0;
  for (const auto& c : cats) max = std::max({max, c.before_ms, c.after_ms});
  std::vector<double> ticks = render::NiceTicks(max, 6);
  const double top = ticks.back();
  const double width = 960, label_w = 150, mr = 80, row_h = 30, bar_h = 11, mt = 8, axis_h = 24;
  const double plot_w = width - label_w - mr;
  const double height = mt + cats.size() * row_h + axis_h;
  auto w_of = [&](double ms) { return plot_w * ms / top; };
  std::string s = fmt::format(
      "<svg id=\"diff-breakdown-chart\" class=\"chart\" viewBox=\"0 0 {} {:.0f}\" role=\"img\" aria-label=\"ms per step "
      "by category, before and after\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      width, height);
  for (double t : ticks) {
    double x = label_w + w_of(t);
    s += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{:.1f}\"/>", x, x, mt,
                     mt + cats.size() * row_h);
    s += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
                     mt + cats.size() * row_h + 15, fmt::format("{:g}", t));
  }
  for (size_t i = 0; i < cats.size(); ++i) {
    const CategoryDelta& c = cats[i];
    double y = mt + i * row_h + 3;
    const char* color = render::CategoryColor(c.category);
    s += fmt::format("<g class=\"pair\"><title>{}: {} ms -> {} ms per step</title>", HtmlEscape(c.category),
                     FormatMs(c.before_ms), FormatMs(c.after_ms));
    s += fmt::format("<text class=\"lane-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", label_w - 8,
                     y + bar_h + 3, HtmlEscape(render::Shorten(c.category, 22)));
    s += fmt::format("<rect class=\"before\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
                     "fill-opacity=\"0.4\"/>",
                     label_w, y, w_of(c.before_ms), bar_h, color);
    s += fmt::format("<rect class=\"after\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w,
                     y + bar_h + 1, w_of(c.after_ms), bar_h, color);
    s += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\">{} ms</text></g>\n",
                     label_w + w_of(std::max(c.before_ms, c.after_ms)) + 6, y + bar_h + 3, FormatSigned(c.delta_ms));
  }
  s += "</svg>\n";
  return s;
}

std::string NameTable(const char* title, const std::vector<NameDelta>& v, int total, const std::string& unit) {
  if (v.empty()) return "";
  std::string s = fmt::format("<h4>{} ({}{})</h4>\n", title, total,
                              total > static_cast<int>(v.size()) ? fmt::format(", top {}", v.size()) : "");
  s += fmt::format("<table class=\"name-delta\"><thead><tr><th>name</th><th class=\"num\">before {}</th>"
                   "<th class=\"num\">after {}</th><th class=\"num\">change</th><th class=\"num\"></th>"
                   "<th class=\"num\">count before &rarr; after</th></tr></thead><tbody>\n",
                   HtmlEscape(unit), HtmlEscape(unit));
  for (const auto& n : v)
    s += fmt::format("<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}{}"
                     "<td class=\"num\">{} &rarr; {}</td></tr>\n",
                     HtmlEscape(n.name), FormatMs(n.before_ms), FormatMs(n.after_ms), DeltaCell(n.delta_ms, FormatSigned(n.delta_ms)),
                     DeltaCell(n.delta_ms, Change(n.change_pct)), FormatCount(n.before_count), FormatCount(n.after_count));
  s += "</tbody></table>\n";
  return s;
}

std::string NamesSection(const char* id, const char* title, const NameChanges& c, const std::string& unit) {
  std::string s = fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n<p class=\"meta\">{} {} before, {} {} after.</p>\n", id,
                              title, FormatMs(c.before_total_ms), HtmlEscape(unit), FormatMs(c.after_total_ms),
                              HtmlEscape(unit));
  std::string body = NameTable("Slower", c.slower, c.slower_total, unit) +
                     NameTable("Faster", c.faster, c.faster_total, unit) +
                     NameTable("Added", c.added, c.added_total, unit) +
                     NameTable("Removed", c.removed, c.removed_total, unit);
  if (body.empty()) body = "<p class=\"note\">No change past the thresholds.</p>\n";
  return s + body + "</section>\n";
}

std::string SeverityBadge(const std::optional<FindingSeverity>& s) {
  if (!s) return "&ndash;";
  return Badge(FindingSeverityName(*s), std::string("sev-") + FindingSeverityName(*s));
}

}  // namespace

std::string RenderDiffHtml(const DiffReport& d, const RenderOptions&) {
  std::string s = render::HtmlPageStart(fmt::format("stepdoctor diff: {} ms -> {} ms", FormatMs(d.before.median_step_ms),
                                                    FormatMs(d.after.median_step_ms)));
  s += "<header>\n<h1>stepdoctor diff</h1>\n";
  s += fmt::format("<p class=\"meta\">before: {} &middot; after: {}</p>\n</header>\n", Inputs(d.before), Inputs(d.after));

  s += "<section id=\"verdict\" class=\"verdict\">\n";
  s += fmt::format("<p class=\"summary\">Median step {} ms &rarr; {} ms: {}</p>\n", FormatMs(d.before.median_step_ms),
                   FormatMs(d.after.median_step_ms), HtmlEscape(DiffSpeedText(d)));
  s += "<div class=\"stats\">";
  s += fmt::format("<div><b>{} ms</b><span>change in median step</span></div>", FormatSigned(d.step_delta_ms));
  s += fmt::format("<div><b>{}</b><span>relative change</span></div>", Change(d.step_change_pct));
  s += fmt::format("<div><b>{} &rarr; {}</b><span>steps</span></div>", d.before.step_count, d.after.step_count);
  s += "</div>\n";
  s += fmt::format("<p>Verdict {} {} &rarr; {}</p>\n", d.verdict_changed ? Badge("changed", "verdict-badge") : Badge("same", "same"),
                   Badge(BottleneckName(d.before.verdict.bottleneck), "verdict-badge"),
                   Badge(BottleneckName(d.after.verdict.bottleneck), "verdict-badge"));
  s += fmt::format("<p class=\"meta\">before: {}<br>after: {}</p>\n</section>\n", HtmlEscape(d.before.verdict.summary),
                   HtmlEscape(d.after.verdict.summary));

  s += "<section id=\"breakdown\">\n<h2>Step-time breakdown</h2>\n";
  if (d.categories.empty()) {
    s += "<p class=\"note\">No breakdown on either side.</p>\n";
  } else {
    s += "<p class=\"meta\">Per category: the pale bar is before, the solid bar after (ms per step).</p>\n";
    s += BreakdownPairsSvg(d.categories);
    s += "<table id=\"diff-breakdown-table\"><thead><tr><th>category</th><th class=\"num\">before ms</th>"
         "<th class=\"num\">after ms</th><th class=\"num\">change ms</th><th class=\"num\">change</th>"
         "<th class=\"num\">share before &rarr; after</th><th class=\"num\">pp</th></tr></thead><tbody>\n";
    for (const auto& c : d.categories)
      s += fmt::format("<tr><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td>{}{}<td class=\"num\">{} &rarr; {}</td>{}</tr>\n",
                       render::CategoryColor(c.category), HtmlEscape(c.category), FormatMs(c.before_ms),
                       FormatMs(c.after_ms), DeltaCell(c.delta_ms, FormatSigned(c.delta_ms)),
                       DeltaCell(c.delta_ms, Change(c.change_pct)), FormatPct(c.before_pct), FormatPct(c.after_pct),
                       DeltaCell(c.delta_pp, FormatSigned(c.delta_pp)));
    s += "</tbody></table>\n";
  }
  s += "</section>\n";

  if (!d.findings.empty()) {
    s += "<section id=\"findings\">\n<h2>Findings</h2>\n<table><thead><tr><th>finding</th><th>before</th><th>after</th>"
         "<th>title</th></tr></thead><tbody>\n";
    for (const auto& f : d.findings)
      s += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n", HtmlEscape(f.id),
                       SeverityBadge(f.before), SeverityBadge(f.after), HtmlEscape(f.after_title));
    s += "</tbody></table>\n</section>\n";
  }
  s += NamesSection("kernels", "Kernels by device time", d.kernels, d.unit);
  s += NamesSection("ops", "Operators by host time (inclusive)", d.ops, d.unit);
  if (!d.notes.empty() || !d.diagnostics.empty()) {
    s += "<section id=\"diagnostics\">\n<h2>Notes</h2>\n<ul class=\"plain\">";
    for (const auto& n : d.notes) s += "<li>" + HtmlEscape(n) + "</li>";
    for (const auto& n : d.diagnostics) s += "<li>" + HtmlEscape(n) + "</li>";
    s += "</ul>\n</section>\n";
  }
  s += render::HtmlPageEnd(d.tool_version);
  return s;
}

}  // namespace stepdoctor
