// Report -> one self-contained HTML page: verdict, findings with their fixes, the step-time
// breakdown per step, the device timeline, top kernels and ops, devices, live samples and
// diagnostics. No script and no external asset: it opens offline and prints.
#include <fmt/format.h>

#include <algorithm>

#include "stepdoctor/render/html_svg.h"
#include "stepdoctor/render/collective_bandwidth_views.h"
#include "stepdoctor/render/kernel_views.h"
#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/render/whatif_render.h"

namespace stepdoctor {
namespace {

using render::Badge;
using render::FormatMs;
using render::FormatPct;
using render::HtmlEscape;

std::string SeverityClass(FindingSeverity s) { return std::string("sev-") + FindingSeverityName(s); }

std::string Stat(const std::string& value, const std::string& label) {
  return fmt::format("<div><b>{}</b><span>{}</span></div>", value, HtmlEscape(label));
}

std::string Header(const Report& r) {
  std::string s = "<header>\n<h1>stepdoctor report</h1>\n<p class=\"meta\">";
  for (size_t i = 0; i < r.inputs.size(); ++i) s += (i ? ", " : "") + ("<code>" + HtmlEscape(r.inputs[i]) + "</code>");
  if (!r.format.empty()) s += " &middot; " + HtmlEscape(r.format);
  s += "</p>\n<nav class=\"toc\"><a href=\"#steps\">Steps</a><a href=\"#findings\">Findings</a>"
       "<a href=\"#timeline\">Timeline</a><a href=\"#top\">Top kernels and ops</a><a href=\"#devices\">Devices</a>";
  if (r.kernel_tables) s += "<a href=\"#kernels\">Kernels by operator</a>";
  if (r.collective_bandwidth && !r.collective_bandwidth->rows.empty())
    s += "<a href=\"#collective-bandwidth\">Collective bandwidth</a>";
  if (!r.series.empty()) s += "<a href=\"#samples\">Live samples</a>";
  s += "<a href=\"#diagnostics\">Diagnostics</a></nav>\n</header>\n";
  return s;
}

std::string VerdictSection(const Report& r) {
  std::string s = "<section id=\"verdict\" class=\"verdict\">\n";
  s += fmt::format("<div>Bottleneck {}</div>\n", Badge(BottleneckName(r.verdict.bottleneck), "verdict-badge"));
  s += fmt::format("<p class=\"summary\">{}</p>\n<p class=\"meta\">{}</p>\n<div class=\"stats\">", HtmlEscape(r.verdict.summary),
                   HtmlEscape(CoverageLine(r.coverage)));
  const StepSummary& st = r.steps;
  if (st.count > 0) {
    s += Stat(FormatMs(st.median_ms) + " ms", "median step");
    s += Stat(FormatMs(st.p90_ms) + " ms", "p90 step");
    s += Stat(FormatMs(st.max_ms) + " ms", "slowest step");
    s += Stat(fmt::format("{}", st.count), st.whole_window ? "window (no steps)" : "steps");
  }
  if (r.window_ms > 0) s += Stat(FormatMs(r.window_ms) + " ms", "trace window");
  s += Stat(fmt::format("{}", r.findings.size()), "findings");
  s += "</div>\n";
  if (!st.source.empty())
    s += fmt::format("<p class=\"meta\">Steps from {}{}.</p>\n", HtmlEscape(st.source),
                     st.excluded_partial > 0 ? fmt::format("; {} partial or overlapping steps left out",
                                                           st.excluded_partial)
                                             : "");
  s += "</section>\n";
  return s;
}

std::string TopEventRows(const std::vector<TopEvent>& events, const char* share_of) {
  std::string s = fmt::format(
      "<table><thead><tr><th>name</th><th class=\"num\">total ms</th><th class=\"num\">count</th>"
      "<th class=\"num\">share of {}</th></tr></thead><tbody>\n",
      share_of);
  for (const auto& e : events)
    s += fmt::format("<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}{}</td></tr>\n",
                     HtmlEscape(e.name), FormatMs(e.total_ms), e.count, FormatPct(e.share_pct),
                     render::ShareBar(e.share_pct));
  s += "</tbody></table>\n";
  return s;
}

std::string FindingArticle(const Finding& f) {
  std::string s = fmt::format("<article class=\"finding finding-{}\" id=\"finding-{}\">\n", FindingSeverityName(f.severity),
                              HtmlEscape(f.id));
  s += fmt::format("<h3>{} {} <code class=\"meta\">{}</code></h3>\n", Badge(FindingSeverityName(f.severity), SeverityClass(f.severity)),
                   HtmlEscape(f.title), HtmlEscape(f.id));
  std::string gain = f.gain_text.empty() ? "" : " &middot; " + HtmlEscape(f.gain_text);
  if (f.prediction && f.prediction->predicted) gain += " &middot; " + HtmlEscape(PredictionLine(*f.prediction));
  s += fmt::format("<p class=\"gain\">{} of step time{}</p>\n", FormatPct(f.share_pct), gain);
  if (!f.evidence.empty()) {
    s += "<h4>Evidence</h4>\n<table class=\"evidence\"><tbody>\n";
    for (const auto& e : f.evidence)
      s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", HtmlEscape(e.label), HtmlEscape(e.value));
    s += "</tbody></table>\n";
  }
  if (!f.top_events.empty()) {
    s += "<h4>Where the time goes</h4>\n";
    s += TopEventRows(f.top_events, "this finding");
  }
  if (!f.fix.summary.empty() || !f.fix.pytorch.empty() || !f.fix.tensorflow.empty()) {
    s += "<h4>Fix</h4>\n";
    if (!f.fix.summary.empty()) s += "<p>" + HtmlEscape(f.fix.summary) + "</p>\n";
    s += "<div class=\"fixes\">";
    if (!f.fix.pytorch.empty())
      s += "<div><b>PyTorch</b><pre><code class=\"fix-pytorch\">" + HtmlEscape(f.fix.pytorch) + "</code></pre></div>";
    if (!f.fix.tensorflow.empty())
      s += "<div><b>TensorFlow</b><pre><code class=\"fix-tensorflow\">" + HtmlEscape(f.fix.tensorflow) +
           "</code></pre></div>";
    s += "</div>\n";
  }
  s += "</article>\n";
  return s;
}

std::string FindingsSection(const Report& r) {
  std::string s = "<section id=\"findings\">\n<h2>Findings</h2>\n";
  if (r.findings.empty()) s += "<p class=\"note\">No findings.</p>\n";
  for (const auto& f : r.findings) s += FindingArticle(f);
  s += "</section>\n";
  return s;
}

std::string Legend(const std::vector<std::string>& categories) {
  std::string s = "<div class=\"legend\">";
  for (const auto& c : categories)
    s += fmt::format("<span><span class=\"swatch\" style=\"background:{}\"></span>{}</span>", render::CategoryColor(c),
                     HtmlEscape(c));
  s += "</div>\n";
  return s;
}

std::string StepsSection(const Report& r) {
  std::string s = "<section id=\"steps\">\n<h2>Step time</h2>\n";
  if (!r.breakdown.empty()) {
    s += "<h4>Where an average step goes</h4>\n" + render::BreakdownBarSvg(r.breakdown);
    s += "<table id=\"breakdown-table\"><thead><tr><th>category</th><th class=\"num\">ms per step</th>"
         "<th class=\"num\">share of step</th></tr></thead><tbody>\n";
    for (const auto& b : r.breakdown)
      s += fmt::format("<tr><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}{}</td></tr>\n",
                       render::CategoryColor(b.category), HtmlEscape(b.category), FormatMs(b.ms_per_step),
                       FormatPct(b.pct), render::ShareBar(b.pct, render::CategoryColor(b.category)));
    s += "</tbody></table>\n";
  }
  if (!r.steps.steps.empty()) {
    s += "<h4>Each step, by category</h4>\n";
    s += Legend(r.steps.categories);
    s += render::StepChartSvg(r.steps);
    if (r.steps.steps.size() > render::kMaxChartSteps)
      s += fmt::format("<p class=\"note\">Showing the first {} of {} steps.</p>\n", render::kMaxChartSteps,
                       r.steps.steps.size());
    if (!r.steps.outlier_numbers.empty()) {
      s += "<p class=\"note\">Marked &#9660;: outlier steps";
      for (size_t i = 0; i < r.steps.outlier_numbers.size(); ++i)
        s += fmt::format("{}{}", i ? ", " : " ", r.steps.outlier_numbers[i]);
      s += ".</p>\n";
    }
  } else {
    s += "<p class=\"note\">No per-step figures in this trace.</p>\n";
  }
  s += "</section>\n";
  return s;
}

std::string TimelineSection(const Report& r) {
  std::string s = "<section id=\"timeline\">\n<h2>Device and host timeline</h2>\n";
  if (r.lanes.empty()) {
    s += "<p class=\"note\">No timeline lanes in this report.</p>\n";
  } else {
    s += "<p class=\"meta\">Dark: busy. Light: idle. Each row is one device stream or host thread over the trace "
         "window.</p>\n";
    const StepCriticalPath* path = r.critical_path && r.critical_path->median_index >= 0
                                       ? &r.critical_path->steps[size_t(r.critical_path->median_index)]
                                       : nullptr;
    if (path)
      s += "<p class=\"meta\">The first row is the median step's critical path: host work (red), launches (orange), "
           "kernels (green), copies (purple) and waits (brown).</p>\n";
    s += render::TimelineSvg(r.lanes, r.window_ms, path);
  }
  s += "</section>\n";
  return s;
}

std::string TopSection(const Report& r) {
  std::string s = "<section id=\"top\">\n<h2>Top kernels and ops</h2>\n";
  s += "<h4>Kernels by device time</h4>\n";
  s += r.top_kernels.empty() ? "<p class=\"note\">No device kernels.</p>\n" : TopEventRows(r.top_kernels, "kernel time");
  s += "<h4>Operators by host time</h4>\n";
  s += r.top_ops.empty() ? "<p class=\"note\">No framework operators.</p>\n" : TopEventRows(r.top_ops, "op time");
  s += "</section>\n";
  return s;
}

// Every rank's step times as a rank x step grid, darker for slower: a straggler is a dark row,
// a slow step for everyone a dark column.
std::string RankStepHeatMap(const Report& r) {
  std::vector<int64_t> numbers;
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& w : r.workers)
    for (size_t i = 0; i < w.step_ms.size() && i < w.step_numbers.size(); ++i) {
      numbers.push_back(w.step_numbers[i]);
      lo = any ? std::min(lo, w.step_ms[i]) : w.step_ms[i];
      hi = any ? std::max(hi, w.step_ms[i]) : w.step_ms[i];
      any = true;
    }
  if (!any) return "";
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::string s = "<h4>Step time by rank and step</h4>\n<table id=\"rank-step-heatmap\" class=\"heatmap\"><thead><tr><th>worker</th>";
  for (int64_t n : numbers) s += fmt::format("<th class=\"num\">{}</th>", n);
  s += "</tr></thead><tbody>\n";
  for (const auto& w : r.workers) {
    s += "<tr><td>" + HtmlEscape(w.name) + "</td>";
    for (int64_t n : numbers) {
      auto it = std::find(w.step_numbers.begin(), w.step_numbers.end(), n);
      const size_t i = size_t(it - w.step_numbers.begin());
      if (it == w.step_numbers.end() || i >= w.step_ms.size()) {
        s += "<td></td>";
        continue;
      }
      const double level = hi > lo ? (w.step_ms[i] - lo) / (hi - lo) : 0;
      s += fmt::format("<td class=\"num\" style=\"background:rgba(200,60,40,{:.2f})\" title=\"step {}: {}\">{:.0f}</td>",
                       0.08 + 0.8 * level, n, FormatMs(w.step_ms[i]), w.step_ms[i]);
    }
    s += "</tr>\n";
  }
  return s + "</tbody></table>\n";
}

std::string DevicesSection(const Report& r) {
  std::string s = "<section id=\"devices\">\n<h2>Devices</h2>\n";
  if (r.devices.empty() && r.workers.empty())
    return s + "<p class=\"note\">No devices with activity.</p>\n</section>\n";
  if (r.devices.empty()) s += "<p class=\"note\">No devices with activity.</p>\n";
  else s += "<table id=\"devices-table\"><thead><tr><th>worker</th><th>device</th><th class=\"num\">span ms</th>"
       "<th class=\"num\">compute</th><th class=\"num\">non-compute</th><th class=\"num\">idle</th>"
       "<th class=\"num\">comm/comp overlap</th><th class=\"num\">kernels</th></tr></thead><tbody>\n";
  const std::vector<size_t> shown = DeviceRowsShown(r);
  for (size_t i : shown) {
    const DeviceUtilization& d = r.devices[i];
    s += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td></tr>\n",
                     HtmlEscape(d.worker), HtmlEscape(d.device), FormatMs(d.span_us / 1000.0), FormatPct(d.compute_pct),
                     render::ShareBar(d.compute_pct, render::CategoryColor("device_compute")),
                     FormatPct(d.non_compute_pct), FormatPct(d.idle_pct),
                     d.comm_comp_overlap_pct ? FormatPct(*d.comm_comp_overlap_pct) : "&ndash;", d.kernel_count);
  }
  if (!r.devices.empty()) s += "</tbody></table>\n";
  if (shown.size() < r.devices.size())
    s += fmt::format("<p class=\"note\">{} more devices in the JSON report (the most idle are shown).</p>\n",
                     r.devices.size() - shown.size());
  if (!r.workers.empty()) {
    const bool aligned = r.alignment && r.alignment->aligned;
    s += "<h4>Ranks (ms per step)</h4>\n<table id=\"ranks-table\"><thead><tr><th>worker</th><th class=\"num\">steps</th>"
         "<th class=\"num\">median step</th><th class=\"num\">device compute</th><th class=\"num\">host</th>"
         "<th class=\"num\">exposed communication</th>";
    if (aligned)
      s += "<th class=\"num\">waits for later ranks</th><th class=\"num\">others wait for it</th>"
           "<th class=\"num\">last in</th>";
    s += "</tr></thead><tbody>\n";
    const std::vector<size_t> rows = RankRowsShown(r);
    for (size_t i : rows) {
      const auto& w = r.workers[i];
      s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                       HtmlEscape(w.name), w.steps, FormatMs(w.median_step_ms), FormatMs(w.compute_ms),
                       FormatMs(w.host_ms), FormatMs(w.collectives_ms));
      if (aligned)
        s += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                         FormatMs(w.wait_ms.value_or(0)), FormatMs(w.late_ms.value_or(0)),
                         FormatPct(w.last_in_pct.value_or(0)));
      s += "</tr>\n";
    }
    s += "</tbody></table>\n";
    if (rows.size() < r.workers.size())
      s += fmt::format("<p class=\"note\">{} more ranks in the JSON report.</p>\n", r.workers.size() - rows.size());
    s += RankStepHeatMap(r);
  }
  s += "</section>\n";
  return s;
}

std::string TensorFlowViewSection(const Report& r) {
  if (r.tensorflow_view.empty()) return "";
  std::string s = "<section id=\"tensorflow-view\">\n<h2>TensorFlow profiler's own verdict</h2>\n";
  for (const auto& v : r.tensorflow_view) {
    s += "<h4>" + HtmlEscape(v.host) + "</h4>\n<ul class=\"plain\">";
    s += "<li>bottleneck: " + HtmlEscape(v.bottleneck.empty() ? std::string("-") : v.bottleneck) + "</li>";
    if (!v.device.empty()) s += "<li>device: " + HtmlEscape(v.device) + "</li>";
    if (v.input_pct) s += "<li>input: " + FormatPct(*v.input_pct) + " of step time</li>";
    if (v.step_ms > 0) s += "<li>mean step: " + FormatMs(v.step_ms) + (v.steps > 0 ? fmt::format(" over {} steps", v.steps) : "") + "</li>";
    if (!v.recommendation.empty()) s += "<li>TensorFlow says: " + HtmlEscape(v.recommendation) + "</li>";
    for (const auto& o : v.other_statements) s += "<li>" + HtmlEscape(o) + "</li>";
    s += "</ul>\n";
    if (!v.breakdown.empty()) {
      s += "<table class=\"tf-breakdown\"><thead><tr><th>TensorFlow category</th><th class=\"num\">ms per step</th>"
           "<th class=\"num\">% of step</th></tr></thead><tbody>\n";
      for (const auto& b : v.breakdown)
        s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n", HtmlEscape(b.category),
                         FormatMs(b.ms_per_step), FormatPct(b.pct));
      s += "</tbody></table>\n";
    }
    if (v.device_idle_pct) s += "<p>device idle (TensorFlow's op statistics): " + FormatPct(*v.device_idle_pct) + "</p>\n";
    if (v.eager_host_pct && *v.eager_host_pct > 0) s += "<p>host op time run eagerly: " + FormatPct(*v.eager_host_pct) + "</p>\n";
    if (v.eager_device_pct && *v.eager_device_pct > 0) s += "<p>device op time run eagerly: " + FormatPct(*v.eager_device_pct) + "</p>\n";
    if (!v.op_types.empty()) {
      s += "<table class=\"tf-op-types\"><thead><tr><th>side</th><th>TensorFlow op type</th><th class=\"num\">self time</th>"
           "<th class=\"num\">% of the side's busy time</th><th class=\"num\">occurrences</th></tr></thead><tbody>\n";
      for (const auto& t : v.op_types)
        s += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                         t.where, HtmlEscape(t.type), FormatMs(t.self_ms), FormatPct(t.pct), t.occurrences);
      s += "</tbody></table>\n";
    }
  }
  s += "</section>\n";
  return s;
}

std::string SamplesSection(const Report& r) {
  if (r.series.empty()) return "";
  std::string s = "<section id=\"samples\">\n<h2>Live samples</h2>\n";
  for (size_t i = 0; i < r.series.size(); ++i) {
    const TimeSeries& t = r.series[i];
    s += fmt::format("<h4>{}{}</h4>\n", HtmlEscape(t.name), t.unit.empty() ? "" : " (" + HtmlEscape(t.unit) + ")");
    s += render::SeriesSvg(t, static_cast<int>(i));
  }
  s += "</section>\n";
  return s;
}

std::string DiagnosticsSection(const Report& r) {
  std::string s = "<section id=\"diagnostics\">\n<h2>Diagnostics</h2>\n";
  if (r.notes.empty() && r.diagnostics.empty()) return s + "<p class=\"note\">No import or analysis problems.</p>\n</section>\n";
  if (!r.notes.empty()) {
    s += "<h4>What the analysis could not do</h4>\n<ul class=\"plain\">";
    for (const auto& n : r.notes) s += "<li>" + HtmlEscape(n) + "</li>";
    s += "</ul>\n";
  }
  if (!r.diagnostics.empty()) {
    s += "<h4>Import and analysis problems</h4>\n<ul class=\"plain\">";
    for (const auto& d : r.diagnostics) s += "<li>" + HtmlEscape(d) + "</li>";
    s += "</ul>\n";
  }
  s += "</section>\n";
  return s;
}

}  // namespace

std::string RenderHtml(const Report& r, const RenderOptions& /*o*/) {
  std::string title = "stepdoctor: " + (r.verdict.summary.empty() ? std::string("report") : r.verdict.summary);
  std::string s = render::HtmlPageStart(render::Shorten(title, 120));
  s += Header(r);
  s += VerdictSection(r);
  s += StepsSection(r);  // the picture first, then what to do about it
  s += FindingsSection(r);
  s += TimelineSection(r);
  s += TopSection(r);
  s += KernelViewsHtml(r);
  s += DevicesSection(r);
  s += CollectiveBandwidthHtml(r);
  s += TensorFlowViewSection(r);
  s += SamplesSection(r);
  s += DiagnosticsSection(r);
  s += render::HtmlPageEnd(r.tool_version);
  return s;
}

}  // namespace stepdoctor
