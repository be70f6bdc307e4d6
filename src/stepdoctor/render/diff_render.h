// Renderers of a DiffReport (`stepdoctor diff`): text, JSON, Markdown and HTML. Like the
// report renderers they never compute: every number printed is a DiffReport field.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/render/render.h"
#include "stepdoctor/report/diff.h"

namespace stepdoctor {

using DiffRenderer = std::string (*)(const DiffReport& d, const RenderOptions& o);

std::string RenderDiffText(const DiffReport& d, const RenderOptions& o);
std::string RenderDiffJson(const DiffReport& d, const RenderOptions& o);
std::string RenderDiffMarkdown(const DiffReport& d, const RenderOptions& o);
std::string RenderDiffHtml(const DiffReport& d, const RenderOptions& o);

// The diff renderer for a --format name ("text", "json", "md", "html"), or nullptr.
DiffRenderer FindDiffRenderer(const std::string& format);
std::vector<std::string> DiffRendererNames();

// "1.24x faster", "1.10x slower", "no change": how a diff's step time moved, for every renderer.
std::string DiffSpeedText(const DiffReport& d);
// "input -> host_compute", or "input (unchanged)".
std::string DiffVerdictText(const DiffReport& d);

}  // namespace stepdoctor
