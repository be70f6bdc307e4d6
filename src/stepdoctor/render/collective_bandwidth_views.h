// The collectives' achieved bandwidth by kind and size, against their link, as a section of the
// text, Markdown and HTML reports (collective_bandwidth_views.cc); JSON is in
// collective_bandwidth_json.h. Each is empty where the report has no sized collectives.
#pragma once

#include <string>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

std::string CollectiveBandwidthText(const Report& r, std::string (*bold)(const std::string&), size_t width);
std::string CollectiveBandwidthMarkdown(const Report& r);
std::string CollectiveBandwidthHtml(const Report& r);  // <section id="collective-bandwidth">

}  // namespace stepdoctor
