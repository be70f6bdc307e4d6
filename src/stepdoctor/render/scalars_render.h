// Renderers of a ScalarsSummary (`stepdoctor scalars`): text, JSON and Markdown. Like the
// report renderers they never compute: every number printed is a ScalarsSummary field.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/render/render.h"
#include "stepdoctor/report/scalars.h"

namespace stepdoctor {

using ScalarsRenderer = std::string (*)(const ScalarsSummary& s, const RenderOptions& o);

std::string RenderScalarsText(const ScalarsSummary& s, const RenderOptions& o);
std::string RenderScalarsJson(const ScalarsSummary& s, const RenderOptions& o);
std::string RenderScalarsMarkdown(const ScalarsSummary& s, const RenderOptions& o);

// The scalars renderer for a --format name ("text", "json", "md"), or nullptr.
ScalarsRenderer FindScalarsRenderer(const std::string& format);
std::vector<std::string> ScalarsRendererNames();

// Phrases the text and Markdown renderers share: "falling -46%", "rising +12%", "flat", "-".
std::string ScalarTrendText(const ScalarTagSummary& g);
// A logged value for people: 4 decimals, or 4 significant digits when tiny or huge.
std::string ScalarValueText(double v);
// "N stalls (gaps >= 3x the median 0.120 s per step), 12.0 s lost (4.1% of 300 s)[, every 500
// steps: checkpoint or evaluation cost]".
std::string ScalarStallsText(const ScalarsSummary& s, const ScalarRunStalls& run);

}  // namespace stepdoctor
