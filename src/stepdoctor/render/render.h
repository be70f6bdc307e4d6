// Renderers: Report -> text for people, JSON for machines, Markdown for PRs, HTML to look at.
// Renderers never compute: every number they print is a field of the Report.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct RenderOptions {
  bool color = false;  // ANSI colour (text only): the CLI sets it on a TTY without NO_COLOR
  int width = 100;     // text wraps at this many columns
  // JSON only: every number as the shortest text that reads back as the same double, not rounded
  // for reading (a rank summary keeps its report so: summary/summary_file).
  bool exact_numbers = false;
};

using Renderer = std::string (*)(const Report& r, const RenderOptions& o);

std::string RenderText(const Report& r, const RenderOptions& o);
std::string RenderJson(const Report& r, const RenderOptions& o);
std::string RenderMarkdown(const Report& r, const RenderOptions& o);  // markdown.cc: for PR comments
std::string RenderHtml(const Report& r, const RenderOptions& o);      // html.cc: one self-contained page

// Appends `text` wrapped at `width` columns, every line prefixed by `indent` (text reports).
void Wrapped(std::string& out, const std::string& text, size_t width, const std::string& indent);

// One line saying what the input holds: "Coverage: pytorch · device activity captured · steps
// from markers · confidence high". Shared by the text, Markdown and HTML renderers.
std::string CoverageLine(const Coverage& c);

// The ranks table of a large job shows this many rows: the ranks the others wait for most, then
// the slowest (rank_rows.cc); JSON lists every rank.
inline constexpr size_t kMaxRankRows = 32;
// Indices into r.workers of the rows a ranks table shows, in the order shown.
std::vector<size_t> RankRowsShown(const Report& r);
// Indices into r.devices a devices table shows: all up to kMaxRankRows, else the most idle first.
std::vector<size_t> DeviceRowsShown(const Report& r);

// The renderer for a --format name ("text", "json", "md", "html"), or nullptr.
Renderer FindRenderer(const std::string& format);
// The names FindRenderer knows, for help and error messages.
std::vector<std::string> RendererNames();

}  // namespace stepdoctor
