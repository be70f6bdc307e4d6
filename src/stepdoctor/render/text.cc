// Text report for people: the verdict on the first line, then steps, breakdown, findings
// ranked, devices, top kernels, and what could not be read. Fits 100 columns.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stepdoctor/render/collective_bandwidth_views.h"
#include "stepdoctor/render/kernel_views.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/render/whatif_render.h"

namespace stepdoctor {
namespace {

struct Style {
  bool on;
  std::string bold(const std::string& s) const { return on ? "\x1b[1m" + s + "\x1b[0m" : s; }
  std::string dim(const std::string& s) const { return on ? "\x1b[2m" + s + "\x1b[0m" : s; }
  std::string sev(FindingSeverity v, const std::string& s) const {
    if (!on) return s;
    const char* c = v == FindingSeverity::kHigh ? "\x1b[31m" : v == FindingSeverity::kModerate ? "\x1b[33m"
                                              : v == FindingSeverity::kLow ? "\x1b[36m" : "\x1b[32m";
    return c + s + "\x1b[0m";
  }
};

std::string Ellipsize(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 3) + "...";
}


std::string Bar(double pct, int width) {
  int n = static_cast<int>(pct / 100.0 * width + 0.5);
  n = std::clamp(n, 0, width);
  std::string s;
  for (int i = 0; i < n; ++i) s += "#";
  return s;
}

// A step time: microseconds under a millisecond (a 47 us step is not "0.0 ms").
// unit_ms: the figure that picks the unit, so that one line's figures share it.
std::string StepTime(double ms, double unit_ms = -1) {
  if (unit_ms < 0) unit_ms = ms;
  return unit_ms > 0 && unit_ms < 1 ? fmt::format("{:.1f} us", ms * 1000) : fmt::format("{:.1f} ms", ms);
}

// The share of the window in one-off start-up where cold_start names one, else 0.
double ColdStartupPct(const Report& r) {
  for (const Finding& f : r.findings)
    if (f.id == "cold_start") return f.share_pct;
  return 0;
}

}  // namespace

// Wraps `text` (render.h) at `width`, every line prefixed by `indent`.
void Wrapped(std::string& out, const std::string& text, size_t width, const std::string& indent) {
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    std::string word = text.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? text.size() : sp + 1;
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
}

std::string RenderText(const Report& r, const RenderOptions& o) {
  Style st{o.color};
  const size_t W = static_cast<size_t>(std::max(60, o.width));
  std::string out;
  out += st.bold(r.verdict.summary) + "\n";  // one line, however long: scripts read it
  out += CoverageLine(r.coverage) + "\n\n";

  const StepSummary& s = r.steps;
  if (s.count > 0) {
    if (s.whole_window)
      out += fmt::format("Window: {} analysed as one region (no step markers)\n", StepTime(s.median_ms));
    else if (s.count == 1)  // nothing to compare it with: say so where the figures are read
      out += fmt::format("Steps: 1 from {}; {}{}; {}\n", s.source, StepTime(s.median_ms),
                         s.excluded_partial ? fmt::format(" ({} partial or overlapping left out)", s.excluded_partial) : "",
                         OneStepCaveat(s.source, s.steps.empty() ? 0 : s.steps.front().number, ColdStartupPct(r)));
    else
      out += fmt::format("Steps: {} from {}; median {}, p90 {}, max {}{}\n", s.count, s.source,
                         StepTime(s.median_ms), StepTime(s.p90_ms, s.median_ms), StepTime(s.max_ms, s.median_ms),
                         s.excluded_partial ? fmt::format(" ({} partial or overlapping left out)", s.excluded_partial) : "");
    for (const auto& w : s.warmup)
      out += fmt::format("Warm-up: step {} took {}; shown here, kept out of the figures and the verdict\n", w.number,
                         StepTime(w.duration_ms));
  }
  if (!r.breakdown.empty()) {
    // No steps: the window is one region, not a step.
    out += s.whole_window ? fmt::format("\nTime by category (the {} window)\n", StepTime(s.mean_ms))
                          : fmt::format("\nStep time by category (mean {} per step)\n", StepTime(s.mean_ms));
    const bool us = s.mean_ms > 0 && s.mean_ms < 1;  // the table in the unit of its total
    std::vector<BreakdownEntry> b = r.breakdown;
    std::stable_sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.pct > y.pct; });
    for (const auto& e : b) {
      if (e.pct < 0.05) continue;
      out += fmt::format("  {:<16} {:>9.1f} {} {:>6.1f}%  {}\n", e.category, us ? e.ms_per_step * 1000 : e.ms_per_step,
                         us ? "us" : "ms", e.pct, Bar(e.pct, 40));
      // The TF profiler's finer split of this category, where it has one.
      for (const auto& d : r.breakdown_detail)
        if (d.category.rfind(e.category + "_", 0) == 0 && d.pct >= 0.05)
          out += fmt::format("    {:<14} {:>9.1f} {} {:>6.1f}%\n", d.category.substr(e.category.size() + 1),
                             us ? d.ms_per_step * 1000 : d.ms_per_step, us ? "us" : "ms", d.pct);
    }
  }

  const bool pytorch_first = r.coverage.framework == "pytorch";
  if (!r.findings.empty()) {
    out += "\n" + st.bold("Findings") + "\n";
    int k = 0;
    for (const auto& f : r.findings) {
      out += "\n";
      std::string head = fmt::format("{}. [{}] {}", ++k, FindingSeverityName(f.severity), f.id);
      out += st.sev(f.severity, head) + "\n";
      Wrapped(out, f.title, W, "   ");
      if (!f.gain_text.empty()) Wrapped(out, "gain: " + f.gain_text, W, "   ");
      if (f.prediction) Wrapped(out, PredictionLine(*f.prediction), W, "   ");
      for (const auto& e : f.evidence) Wrapped(out, "- " + e.label + ": " + e.value, W, "   ");
      for (const auto& t : f.top_events)
        out += fmt::format("   * {}  {:.1f} ms total, {} calls\n", Ellipsize(t.name, W - 40), t.total_ms, t.count);
      if (!f.fix.summary.empty()) Wrapped(out, "fix: " + f.fix.summary, W, "   ");
      auto code = [&](const char* label, const std::string& c) {
        if (c.empty()) return;
        out += "   " + st.dim(label) + "\n";
        size_t p = 0;
        while (p <= c.size()) {
          size_t nl = c.find('\n', p);
          out += "     " + c.substr(p, nl == std::string::npos ? std::string::npos : nl - p) + "\n";
          if (nl == std::string::npos) break;
          p = nl + 1;
        }
      };
      // The framework that wrote the trace first.
      if (pytorch_first) {
        code("PyTorch:", f.fix.pytorch);
        code("TensorFlow:", f.fix.tensorflow);
      } else {
        code("TensorFlow:", f.fix.tensorflow);
        code("PyTorch:", f.fix.pytorch);
      }
    }
  }

  if (!r.devices.empty()) {
    // HTA's span runs from the device's first to its last activity, over the work launched before
    // the last ProfilerStep: it can cover far less than the steps (their idle is in the breakdown).
    const char* until = r.steps.source.find("ProfilerStep") != std::string::npos ? "launched before the last ProfilerStep"
                        : r.steps.whole_window                                      ? "in the window"
                                                                                     : "launched before the last step";
    out += "\n" + st.bold("Devices") +
           fmt::format(" (HTA's definitions: the device's active span, from its first to its last activity {}; its "
                       "share of each step is in the breakdown above)\n",
                       until);
    out += fmt::format("  {:<22} {:<32} {:>9} {:>6} {:>8} {:>7} {:>8}\n", "worker", "device", "span ms", "idle%",
                       "compute%", "other%", "overlap%");
    const std::vector<size_t> shown = DeviceRowsShown(r);
    // A share that rounds to zero prints as 0.0, never -0.0 (differences of nearly equal spans).
    auto pct = [](double v) { return std::abs(v) < 0.05 ? 0.0 : v; };
    for (size_t i : shown) {
      const DeviceUtilization& d = r.devices[i];
      out += fmt::format("  {:<22} {:<32} {:>9.1f} {:>6.1f} {:>8.1f} {:>7.1f} {:>8}\n", Ellipsize(d.worker, 22),
                         Ellipsize(d.device, 32), d.span_us / 1e3, pct(d.idle_pct), pct(d.compute_pct), pct(d.non_compute_pct),
                         d.comm_comp_overlap_pct ? fmt::format("{:.1f}", *d.comm_comp_overlap_pct) : "-");
    }
    if (shown.size() < r.devices.size())
      out += fmt::format("  ... {} more devices (the most idle are shown; --format json lists all)\n",
                         r.devices.size() - shown.size());
  }
  if (!r.workers.empty()) {
    const bool aligned = r.alignment && r.alignment->aligned;
    out += "\n" + st.bold("Ranks") + " (ms per step: device compute, host, exposed communication" +
           (aligned ? "; wait for later ranks, the others' wait for it, share of collectives it arrived last at)\n"
                    : ")\n");
    out += fmt::format("  {:<36} {:>6} {:>12} {:>9} {:>9} {:>9}", "worker", "steps", "median step", "compute", "host",
                       "comm");
    out += aligned ? fmt::format(" {:>9} {:>9} {:>6}\n", "wait", "late", "last") : "\n";
    const std::vector<size_t> rows = RankRowsShown(r);
    for (size_t i : rows) {
      const auto& w = r.workers[i];
      out += fmt::format("  {:<36} {:>6} {:>12.1f} {:>9.1f} {:>9.1f} {:>9.1f}", Ellipsize(w.name, 36), w.steps,
                         w.median_step_ms, w.compute_ms, w.host_ms, w.collectives_ms);
      out += aligned ? fmt::format(" {:>9.1f} {:>9.1f} {:>5.0f}%\n", w.wait_ms.value_or(0), w.late_ms.value_or(0),
                                   w.last_in_pct.value_or(0))
                     : "\n";
    }
    if (rows.size() < r.workers.size())
      out += fmt::format("  ... {} more ranks (the ones the others wait for most are shown; --format json lists all)\n",
                         r.workers.size() - rows.size());
    if (r.alignment) {
      const auto& a = *r.alignment;
      if (a.aligned)
        out += fmt::format("  {} collectives matched on every rank's {}{} over {} steps; clocks aligned on their "
                           "completions (largest offset {:.1f} ms)\n",
                           a.matched, a.collectives_on,
                           a.matched_by == "sequence" ? " by process group and sequence number" : "", a.steps,
                           a.max_skew_ms);
      for (size_t i = 0; i < a.collectives.size() && i < 3 && a.aligned; ++i)
        out += fmt::format("    {}: {} calls, the others wait {:.2f} ms for the last rank, transfer {:.2f} ms\n",
                           Ellipsize(a.collectives[i].name, 48), a.collectives[i].calls, a.collectives[i].mean_wait_ms,
                           a.collectives[i].mean_transfer_ms);
    }
  }
  {
    using Bold = std::string (*)(const std::string&);
    const Bold bold = o.color ? Bold([](const std::string& x) { return "\x1b[1m" + x + "\x1b[0m"; })
                              : Bold([](const std::string& x) { return x; });
    out += CollectiveBandwidthText(r, bold, W);
  }
  for (const auto& v : r.tensorflow_view) {
    out += "\n" + st.bold("TensorFlow profiler's own verdict") + fmt::format(" ({}, as TensorFlow wrote it)\n", v.host);
    std::string line = "  bottleneck: " + (v.bottleneck.empty() ? std::string("-") : v.bottleneck);
    if (!v.device.empty()) line += "; device " + v.device;
    if (v.input_pct) line += fmt::format("; input {:.1f}% of step time", *v.input_pct);
    if (v.step_ms > 0) line += fmt::format("; mean step {:.1f} ms", v.step_ms);
    if (v.steps > 0) line += fmt::format(" over {} steps", v.steps);
    // An op statistics page alone names no bottleneck: no line of dashes for it.
    if (!v.bottleneck.empty() || !v.device.empty() || v.input_pct || v.step_ms > 0) out += line + "\n";
    if (!v.recommendation.empty()) Wrapped(out, "  \"" + v.recommendation + "\"", W, "   ");
    for (const auto& o : v.other_statements) Wrapped(out, "  - " + o, W, "    ");
    for (const auto& b : v.breakdown)
      out += fmt::format("  {:<24} {:>10.1f} ms {:>6.1f}%\n", b.category, b.ms_per_step, b.pct);
    if (!v.op_types.empty() || v.device_idle_pct) {
      std::string head = "op statistics (TensorFlow's, self time over the profile)";
      if (v.device_idle_pct) head += fmt::format(": device idle {:.1f}%", *v.device_idle_pct);
      if (v.eager_device_pct && *v.eager_device_pct > 0) head += fmt::format("; eager on device {:.1f}%", *v.eager_device_pct);
      if (v.eager_host_pct && *v.eager_host_pct > 0) head += fmt::format("; eager on host {:.1f}%", *v.eager_host_pct);
      Wrapped(out, head, W, "  ");
      for (const auto& t : v.op_types)
        out += fmt::format("    {:<6} {:>10.1f} ms {:>5.1f}% {:>8}x  {}\n", t.where, t.self_ms, t.pct, t.occurrences,
                           Ellipsize(t.type, W - 42));
    }
  }
  auto table = [&](const char* title, const std::vector<TopEvent>& rows) {
    if (rows.empty()) return;
    out += "\n" + st.bold(title) + "\n";
    for (const auto& t : rows)
      out += fmt::format("  {:>10.1f} ms {:>5.1f}% {:>8}x  {}\n", t.total_ms, t.share_pct, t.count,
                         Ellipsize(t.name, W - 36));
  };
  table("Top kernels by device time (copies and memsets included, named as the trace names them)", r.top_kernels);
  table("Top operators by host time (inclusive, summed over calls; % of the window with a call running)", r.top_ops);
  using Bold = std::string (*)(const std::string&);
  const Bold bold = o.color ? Bold([](const std::string& x) { return "\x1b[1m" + x + "\x1b[0m"; })
                            : Bold([](const std::string& x) { return x; });
  out += KernelViewsText(r, bold, W);

  if (!r.notes.empty() || !r.diagnostics.empty()) {
    out += "\n" + st.bold("Notes") + "\n";
    for (const auto& n : r.notes) Wrapped(out, "- " + n, W, "  ");
    for (const auto& d : r.diagnostics) Wrapped(out, "- input: " + d, W, "  ");
  }
  // A format is named only where the files brought something to analyse (as Markdown and HTML do).
  const std::string format = r.format.empty() ? "" : " (" + r.format + ")";
  out += "\n" + st.dim(fmt::format("read {} file(s){} with stepdoctor {}", r.inputs.size(), format, r.tool_version)) + "\n";
  return out;
}

}  // namespace stepdoctor
