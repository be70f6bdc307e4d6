// The tune report as text for people, JSON for machines (keys in docs/tune.md), Markdown for a
// pull request and one HTML page. Like every renderer they never compute: each number printed
// is a TuneReport field.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/report/tune_report.h"

namespace stepdoctor {

using TuneRenderer = std::string (*)(const TuneReport& r);

std::string RenderTuneText(const TuneReport& r);
std::string RenderTuneJson(const TuneReport& r);
std::string RenderTuneMarkdown(const TuneReport& r);
std::string RenderTuneHtml(const TuneReport& r);

// The renderer for a --format name ("text", "json", "md", "html"), or nullptr.
TuneRenderer FindTuneRenderer(const std::string& format);
std::vector<std::string> TuneRendererNames();

}  // namespace stepdoctor
