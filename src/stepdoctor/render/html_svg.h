// Inline SVG charts for the HTML reports, drawn by hand so the page needs no script and no
// network. Each chart has a fixed id or class the browser test looks for; every mark carries
// a <title> so hovering shows its numbers. The charts only scale Report figures to pixels.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/report/report.h"

namespace stepdoctor::render {

// Steps drawn at most in the per-step chart; a longer run shows its first kMaxChartSteps.
inline constexpr size_t kMaxChartSteps = 300;

// <svg id="step-chart">: one stacked bar per step (category_ms in `steps.categories` order),
// the median as a dashed line, outlier steps marked. Empty when there are no steps.
std::string StepChartSvg(const StepSummary& steps);

// <svg id="breakdown-bar">: the step-time breakdown as one 100% bar.
std::string BreakdownBarSvg(const std::vector<BreakdownEntry>& breakdown);

// <svg id="timeline-chart">: one row per lane, busy intervals dark over an idle track, with a
// time axis from 0 to `window_ms`; with `path`, a first row (class "critical-lane") holds that
// step's critical path, each segment coloured by its kind (class "path-<kind>"). Empty when
// there are no lanes.
std::string TimelineSvg(const std::vector<DeviceLane>& lanes, double window_ms, const StepCriticalPath* path = nullptr);

// <svg class="series-chart">: a line chart of one sampled metric.
std::string SeriesSvg(const TimeSeries& s, int index);

// A small inline bar (HTML, not SVG) of a share 0-100, for table cells.
std::string ShareBar(double pct, const char* color = "#4e79a7");

// Up to about `target` round tick values covering [0, max]: 0, 20, 40, ...
std::vector<double> NiceTicks(double max, int target = 5);

}  // namespace stepdoctor::render
