#include "stepdoctor/render/html_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stepdoctor/render/html_util.h"

namespace stepdoctor::render {
namespace {

// Pixel geometry: the charts are drawn in a 960-unit-wide viewBox and scale to the page.
constexpr double kWidth = 960;
constexpr double kAxisFont = 11;

std::string Px(double v) { return fmt::format("{:.1f}", v); }

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Tick label text for an axis value.
std::string TickText(double v) {
  if (std::abs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

}  // namespace

std::vector<double> NiceTicks(double max, int target) {
  if (!(max > 0) || !std::isfinite(max)) return {0, 1};
  double raw = max / std::max(1, target);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  std::vector<double> ticks;
  int n = static_cast<int>(std::ceil(max / step - 1e-9));
  for (int i = 0; i <= std::max(1, n); ++i) ticks.push_back(i * step);
  return ticks;
}

std::string StepChartSvg(const StepSummary& steps) {
  if (steps.steps.empty()) return "";
  const size_t n = std::min(steps.steps.size(), kMaxChartSteps);
  const double ml = 56, mr = 12, mt = 18, mb = 36, height = 300;
  const double plot_w = kWidth - ml - mr, plot_h = height - mt - mb;
  double ymax = steps.median_ms;
  for (size_t i = 0; i < n; ++i) ymax = std::max(ymax, steps.steps[i].duration_ms);
  std::vector<double> ticks = NiceTicks(ymax);
  const double top = ticks.back();
  auto y_of = [&](double ms) { return mt + plot_h - plot_h * ms / top; };

  std::string s = fmt::format(
      "<svg id=\"step-chart\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"step time per step, stacked by category\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      kWidth, height);
  // Grid and y axis.
  for (double t : ticks) {
    double y = y_of(t);
    s += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Px(ml), Px(kWidth - mr), Px(y), Px(y));
    s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Px(ml - 6), Px(y + 4),
                     TickText(t));
  }
  s += fmt::format("<text class=\"axis\" x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">ms</text>\n",
                   Px(mt + plot_h / 2), Px(mt + plot_h / 2));

  const double slot = plot_w / n;
  const double bar_w = std::max(1.0, slot * (n > 100 ? 0.9 : 0.75));
  const size_t label_every = std::max<size_t>(1, (n + 15) / 16);
  for (size_t i = 0; i < n; ++i) {
    const StepRecord& st = steps.steps[i];
    const double x = ml + i * slot + (slot - bar_w) / 2;
    std::string tip = fmt::format("step {}: {} ms", st.number, FormatMs(st.duration_ms));
    for (size_t c = 0; c < st.category_ms.size() && c < steps.categories.size(); ++c)
      if (st.category_ms[c] > 0) tip += fmt::format("\n{}: {} ms", steps.categories[c], FormatMs(st.category_ms[c]));
    bool outlier = Contains(steps.outlier_numbers, st.number);
    s += fmt::format("<g class=\"step{}\" data-step=\"{}\"><title>{}</title>", outlier ? " outlier" : "", st.number,
                     HtmlEscape(tip));
    double base = 0;
    for (size_t c = 0; c < st.category_ms.size() && c < steps.categories.size(); ++c) {
      double v = st.category_ms[c];
      if (v <= 0) continue;
      double y0 = y_of(base), y1 = y_of(base + v);
      s += fmt::format("<rect class=\"seg seg-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                       HtmlEscape(steps.categories[c]), Px(x), Px(y1), Px(bar_w), Px(std::max(0.0, y0 - y1)),
                       CategoryColor(steps.categories[c]));
      base += v;
    }
    if (st.category_ms.empty()) {  // no breakdown for this step: its duration alone
      s += fmt::format("<rect class=\"seg\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#a8a8a8\"/>", Px(x),
                       Px(y_of(st.duration_ms)), Px(bar_w), Px(plot_h * st.duration_ms / top));
    }
    if (outlier) {
      double ty = y_of(std::max(base, st.duration_ms)) - 4, cx = x + bar_w / 2;
      s += fmt::format("<path class=\"outlier-mark\" d=\"M{} {} l-4 -7 h8 z\"/>", Px(cx), Px(ty));
    }
    s += "</g>\n";
    if (i % label_every == 0)
      s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Px(x + bar_w / 2),
                       Px(mt + plot_h + 15), st.number);
  }
  s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">step</text>\n", Px(ml + plot_w / 2),
                   Px(height - 4));
  if (steps.median_ms > 0) {
    double y = y_of(steps.median_ms);
    s += fmt::format("<line class=\"median\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Px(ml), Px(kWidth - mr), Px(y),
                     Px(y));
    s += fmt::format("<text class=\"median-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">median {} ms</text>\n",
                     Px(kWidth - mr - 2), Px(y - 4), FormatMs(steps.median_ms));
  }
  s += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n</svg>\n", Px(ml),
                   Px(kWidth - mr), Px(mt + plot_h), Px(mt + plot_h));
  return s;
}

std::string BreakdownBarSvg(const std::vector<BreakdownEntry>& breakdown) {
  if (breakdown.empty()) return "";
  const double height = 34;
  std::string s = fmt::format(
      "<svg id=\"breakdown-bar\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"share of step time by "
      "category\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      kWidth, height);
  double x = 0;
  for (const auto& b : breakdown) {
    if (b.pct <= 0) continue;
    double w = kWidth * std::min(b.pct, 100.0) / 100.0;
    s += fmt::format("<g class=\"part part-{}\"><title>{}: {} ms/step ({})</title>", HtmlEscape(b.category),
                     HtmlEscape(b.category), FormatMs(b.ms_per_step), FormatPct(b.pct));
    s += fmt::format("<rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", Px(x), Px(w), height,
                     CategoryColor(b.category));
    // A label only where it fits (about 7 units a character at this font size).
    std::string label = b.category + " " + FormatPct(b.pct);
    if (w < label.size() * 7.2 + 12) label = FormatPct(b.pct);
    if (w >= label.size() * 7.2 + 12)
      s += fmt::format("<text class=\"bar-label\" x=\"{}\" y=\"{}\">{}</text>", Px(x + 6), Px(height / 2 + 4),
                       HtmlEscape(label));
    s += "</g>\n";
    x += w;
  }
  s += "</svg>\n";
  return s;
}

std::string TimelineSvg(const std::vector<DeviceLane>& lanes, double window_ms, const StepCriticalPath* path) {
  if (lanes.empty()) return "";
  double span = window_ms;
  if (!(span > 0))  // no window recorded: scale to the last busy interval
    for (const auto& l : lanes)
      for (const auto& [a, b] : l.busy_ms) span = std::max(span, b);
  if (!(span > 0)) span = 1;
  const double label_w = 200, mr = 12, mt = 6, row_h = 16, gap = 5, axis_h = 30;
  const double plot_w = kWidth - label_w - mr;
  const size_t rows = lanes.size() + (path ? 1 : 0);
  const double height = mt + rows * (row_h + gap) + axis_h;
  auto x_of = [&](double ms) { return label_w + plot_w * std::clamp(ms / span, 0.0, 1.0); };

  std::string s = fmt::format(
      "<svg id=\"timeline-chart\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"busy intervals per "
      "device stream and host thread\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      kWidth, Px(height));
  if (path) {
    s += fmt::format("<g class=\"critical-lane\"><title>critical path of step {} ({} segments)</title>", path->step,
                     path->segments.size());
    s += fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">critical path (step {})</text>",
                     Px(label_w - 8), Px(mt + row_h - 4), path->step);
    s += fmt::format("<rect class=\"idle\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", Px(label_w), Px(mt),
                     Px(plot_w), Px(row_h));
    for (const auto& g : path->segments) {
      const double x0 = x_of(g.start_ms), x1 = x_of(g.start_ms + g.dur_ms);
      s += fmt::format("<rect class=\"path-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} {}: {:.3f} ms</title></rect>",
                       PathKindName(g.kind), Px(x0), Px(mt), Px(std::max(0.6, x1 - x0)), Px(row_h), PathKindName(g.kind),
                       HtmlEscape(g.name), g.dur_ms);
    }
    s += "</g>\n";
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    const DeviceLane& l = lanes[i];
    double y = mt + (i + (path ? 1 : 0)) * (row_h + gap);
    s += fmt::format("<g class=\"lane\"><title>{} ({} busy intervals shown)</title>", HtmlEscape(l.label),
                     l.busy_ms.size());
    s += fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", Px(label_w - 8),
                     Px(y + row_h - 4), HtmlEscape(Shorten(l.label, 30)));
    s += fmt::format("<rect class=\"idle\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", Px(label_w), Px(y),
                     Px(plot_w), Px(row_h));
    for (const auto& [a, b] : l.busy_ms) {
      double x0 = x_of(a), x1 = x_of(b);
      s += fmt::format("<rect class=\"busy\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", Px(x0), Px(y),
                       Px(std::max(0.6, x1 - x0)), Px(row_h));
    }
    s += "</g>\n";
  }
  const double axis_y = mt + rows * (row_h + gap);
  s += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Px(label_w),
                   Px(kWidth - mr), Px(axis_y), Px(axis_y));
  for (double t : NiceTicks(span, 8)) {
    if (t > span * 1.0001) break;
    double x = x_of(t);
    s += fmt::format("<line class=\"tick\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Px(x), Px(x), Px(axis_y),
                     Px(axis_y + 4));
    s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Px(x),
                     Px(axis_y + 16), TickText(t));
  }
  s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">ms from window start</text>\n",
                   Px(label_w - 8), Px(axis_y + 16));
  s += "</svg>\n";
  return s;
}

std::string SeriesSvg(const TimeSeries& ts, int index) {
  const double ml = 56, mr = 12, mt = 12, mb = 30, height = 170;
  const double plot_w = kWidth - ml - mr, plot_h = height - mt - mb;
  double tmax = 0, vmax = 0;
  for (const auto& [t, v] : ts.points) {
    tmax = std::max(tmax, t);
    vmax = std::max(vmax, v);
  }
  if (ts.unit == "%") vmax = std::max(vmax, 100.0);
  std::vector<double> vt = NiceTicks(vmax, 4);
  std::vector<double> tt = NiceTicks(tmax > 0 ? tmax : 1, 8);
  const double vtop = vt.back(), ttop = tt.back();
  auto x_of = [&](double t) { return ml + plot_w * t / ttop; };
  auto y_of = [&](double v) { return mt + plot_h - plot_h * std::max(0.0, v) / vtop; };

  std::string s = fmt::format(
      "<svg id=\"series-{}\" class=\"chart series-chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n<title>{} ({})</title>\n",
      index, kWidth, height, HtmlEscape(ts.name), HtmlEscape(ts.name), HtmlEscape(ts.unit));
  for (double v : vt) {
    double y = y_of(v);
    s += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Px(ml), Px(kWidth - mr), Px(y), Px(y));
    s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Px(ml - 6), Px(y + 4),
                     TickText(v));
  }
  for (double t : tt) {
    double x = x_of(t);
    s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Px(x),
                     Px(mt + plot_h + 15), TickText(t));
  }
  s += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">s</text>\n", Px(kWidth - mr),
                   Px(height - 2));
  std::string pts;
  for (const auto& [t, v] : ts.points) pts += fmt::format("{},{} ", Px(x_of(t)), Px(y_of(v)));
  if (ts.points.size() == 1) {
    s += fmt::format("<circle class=\"series-line\" cx=\"{}\" cy=\"{}\" r=\"3\"/>\n", Px(x_of(ts.points[0].first)),
                     Px(y_of(ts.points[0].second)));
  } else if (!pts.empty()) {
    s += fmt::format("<polyline class=\"series-line\" points=\"{}\"/>\n", pts);
  }
  s += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n</svg>\n", Px(ml),
                   Px(kWidth - mr), Px(mt + plot_h), Px(mt + plot_h));
  return s;
}

std::string ShareBar(double pct, const char* color) {
  return fmt::format("<span class=\"sbar\"><span style=\"width:{:.1f}%;background:{}\"></span></span>",
                     std::clamp(pct, 0.0, 100.0), color);
}

}  // namespace stepdoctor::render
