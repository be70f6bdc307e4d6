// io-bench's report as text and Markdown or HTML for people, JSON for machines (keys in docs/input.md).
#pragma once

#include <string>

#include "stepdoctor/report/io_bench_report.h"

namespace stepdoctor {

std::string RenderIoBenchText(const IoBenchReport& r);
std::string RenderIoBenchJson(const IoBenchReport& r);
std::string RenderIoBenchMarkdown(const IoBenchReport& r);  // io_bench_md_html.cc
std::string RenderIoBenchHtml(const IoBenchReport& r, const std::string& tool_version);

// Sizes as io-bench prints them, in powers of 10: "81.9 MB", "4.1 KB".
std::string IoBenchSize(double bytes);

}  // namespace stepdoctor
