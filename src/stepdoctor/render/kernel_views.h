// The critical path and the kernel tables as text, Markdown and HTML sections of the diagnose
// report (kernel_views_text.cc, kernel_views_md.cc, kernel_views_html.cc); JSON is in
// kernel_views_json.h.
#pragma once

#include <string>

#include "stepdoctor/report/report.h"

namespace stepdoctor {

// Rows of the text tables: the top operators with kernels, each one's kernels, the contributors
// to the path.
inline constexpr size_t kTextOpsShown = 5;
inline constexpr size_t kTextKernelsPerOpShown = 3;
inline constexpr size_t kTextPathRowsShown = 6;

// "Critical path (median step)" and "Kernels of the top operators" sections, titles made bold by
// `bold`; empty where the report has neither.
std::string KernelViewsText(const Report& r, std::string (*bold)(const std::string&), size_t width);
// The same for Markdown (pull requests): the median step's path and the top operators' kernels.
std::string KernelViewsMarkdown(const Report& r);
// <section id="kernels">: the op -> kernel table, the class split, delay outliers and queues.
std::string KernelViewsHtml(const Report& r);

}  // namespace stepdoctor
