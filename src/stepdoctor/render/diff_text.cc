// DiffReport -> plain text for a terminal.
#include <fmt/format.h>

#include "stepdoctor/render/diff_render.h"
#include "stepdoctor/render/html_util.h"

namespace stepdoctor {
namespace {

using render::FormatCount;
using render::FormatMs;
using render::FormatPct;
using render::FormatSigned;

std::string Inputs(const DiffSide& s) {
  std::string out;
  for (size_t i = 0; i < s.inputs.size(); ++i) out += (i ? ", " : "") + s.inputs[i];
  return out;
}

std::string StepsOf(const DiffSide& s) {
  if (s.whole_window) return "no step markers: the whole window";
  return fmt::format("{} steps, {}", s.step_count, s.step_source);
}

std::string Change(const std::optional<double>& pct) { return pct ? FormatSigned(*pct, "%") : "new"; }

std::string SeverityOf(const std::optional<FindingSeverity>& s) { return s ? FindingSeverityName(*s) : "-"; }

void NameGroup(std::string& s, const char* title, const std::vector<NameDelta>& v, int total, const std::string& unit,
               int width) {
  if (v.empty()) return;
  s += fmt::format("  {} ({}{}):\n", title, total, total > static_cast<int>(v.size()) ? fmt::format(", top {}", v.size()) : "");
  for (const auto& n : v) {
    std::string counts = n.before_count == n.after_count
                             ? fmt::format("x{}", FormatCount(n.after_count))
                             : fmt::format("x{} -> x{}", FormatCount(n.before_count), FormatCount(n.after_count));
    s += fmt::format("    {:>9} {} {:>8}  {:>8} -> {:<8} {:<14} {}\n", FormatSigned(n.delta_ms), unit,
                     n.change_pct ? FormatSigned(*n.change_pct, "%") : "new", FormatMs(n.before_ms), FormatMs(n.after_ms),
                     counts, render::Shorten(n.name, std::max(40, width - 62)));
  }
}

void Names(std::string& s, const char* title, const NameChanges& c, const std::string& unit, int width) {
  s += fmt::format("\n{} ({}): {} -> {}\n", title, unit, FormatMs(c.before_total_ms), FormatMs(c.after_total_ms));
  if (c.slower.empty() && c.faster.empty() && c.added.empty() && c.removed.empty()) {
    s += "  no change past the thresholds\n";
    return;
  }
  NameGroup(s, "slower", c.slower, c.slower_total, unit, width);
  NameGroup(s, "faster", c.faster, c.faster_total, unit, width);
  NameGroup(s, "added", c.added, c.added_total, unit, width);
  NameGroup(s, "removed", c.removed, c.removed_total, unit, width);
}

}  // namespace

std::string RenderDiffText(const DiffReport& d, const RenderOptions& o) {
  std::string s;
  std::string pct = d.step_change_pct ? FormatSigned(*d.step_change_pct, "%") + ", " : "";
  s += fmt::format("Median step: {} ms -> {} ms ({}{} ms): {}\n", FormatMs(d.before.median_step_ms),
                   FormatMs(d.after.median_step_ms), pct, FormatSigned(d.step_delta_ms), DiffSpeedText(d));
  s += fmt::format("Verdict: {}\n", DiffVerdictText(d));
  s += fmt::format("  before: {}\n  after:  {}\n", d.before.verdict.summary, d.after.verdict.summary);
  s += fmt::format("\nbefore: {} ({})\nafter:  {} ({})\n", Inputs(d.before), StepsOf(d.before), Inputs(d.after),
                   StepsOf(d.after));

  if (!d.categories.empty()) {
    s += fmt::format("\nStep-time breakdown (ms per step)\n  {:<16} {:>9} {:>9} {:>9} {:>9}   {}\n", "category", "before",
                     "after", "change", "change", "share of step");
    for (const auto& c : d.categories)
      s += fmt::format("  {:<16} {:>9} {:>9} {:>9} {:>9}   {} -> {} ({} pp)\n", c.category, FormatMs(c.before_ms),
                       FormatMs(c.after_ms), FormatSigned(c.delta_ms), Change(c.change_pct), FormatPct(c.before_pct),
                       FormatPct(c.after_pct), FormatSigned(c.delta_pp));
  }
  if (!d.findings.empty()) {
    s += "\nFindings (severity before -> after)\n";
    for (const auto& f : d.findings)
      s += fmt::format("  {:<22} {:>8} -> {:<8}  {}\n", f.id, SeverityOf(f.before), SeverityOf(f.after), f.after_title);
  }
  if (!d.predictions.empty()) {
    s += "\nPredicted by before, measured in after (mean step)\n";
    for (const auto& c : d.predictions)
      s += fmt::format("  {:<22} --fix {:<10} predicted {} ms ({}-{}), measured {} ms (median {}): {}{:.0f}%{}\n", c.finding,
                       c.fix, FormatMs(c.predicted_step_ms), FormatMs(c.low_ms), FormatMs(c.high_ms),
                       FormatMs(c.measured_step_ms), FormatMs(c.measured_median_ms), c.error_pct >= 0 ? "+" : "",
                       c.error_pct, c.within_range ? ", within the range" : "");
  }
  Names(s, "Kernels by device time", d.kernels, d.unit, o.width);
  Names(s, "Operators by host time, inclusive", d.ops, d.unit, o.width);
  if (!d.notes.empty() || !d.diagnostics.empty()) {
    s += "\n";
    for (const auto& n : d.notes) s += "note: " + n + "\n";
    for (const auto& n : d.diagnostics) s += "problem: " + n + "\n";
  }
  return s;
}

}  // namespace stepdoctor
