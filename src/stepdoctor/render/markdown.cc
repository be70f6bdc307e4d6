// Report -> GitHub-flavoured Markdown for pull-request comments: the verdict, a table of
// findings (evidence and fixes folded in <details>), the breakdown, steps and devices.
#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/collective_bandwidth_views.h"
#include "stepdoctor/render/kernel_views.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/render/whatif_render.h"

namespace stepdoctor {
namespace {

using render::FormatMs;
using render::FormatPct;
using render::MdCode;
using render::MdText;

std::string FindingsTable(const Report& r) {
  if (r.findings.empty()) return "No findings.\n\n";
  std::string s = "| Severity | Finding | Share of step | Possible gain |\n|---|---|---:|---|\n";
  for (const auto& f : r.findings)
    s += fmt::format("| **{}** | {} {} | {} | {} |\n", FindingSeverityName(f.severity), MdText(f.title), MdCode(f.id),
                     FormatPct(f.share_pct),
                     MdText(f.gain_text + (f.prediction && f.prediction->predicted ? "; " + PredictionLine(*f.prediction) : "")));
  s += "\n";
  for (const auto& f : r.findings) {
    bool has_fix = !f.fix.summary.empty() || !f.fix.pytorch.empty() || !f.fix.tensorflow.empty();
    if (f.evidence.empty() && !has_fix) continue;
    s += fmt::format("<details><summary>{}: evidence and fix</summary>\n\n", render::HtmlEscape(f.id));
    for (const auto& e : f.evidence) s += fmt::format("- {}: {}\n", MdText(e.label), MdText(e.value));
    if (!f.evidence.empty()) s += "\n";
    if (!f.fix.summary.empty()) s += "**Fix:** " + MdText(f.fix.summary) + "\n\n";
    if (!f.fix.pytorch.empty()) s += "PyTorch:\n\n" + render::MdFence(f.fix.pytorch, "python") + "\n";
    if (!f.fix.tensorflow.empty()) s += "TensorFlow:\n\n" + render::MdFence(f.fix.tensorflow, "python") + "\n";
    s += "</details>\n\n";
  }
  return s;
}

std::string StepsPart(const Report& r) {
  const StepSummary& st = r.steps;
  std::string s = "### Steps\n\n";
  if (st.count == 0) return s + "No steps found.\n\n";
  s += fmt::format("{} {} from {}: median **{} ms**, p90 {} ms, min {} ms, max {} ms, mean {} ms.", st.count,
                   st.whole_window ? "window" : (st.count == 1 ? "step" : "steps"), MdText(st.source),
                   FormatMs(st.median_ms), FormatMs(st.p90_ms), FormatMs(st.min_ms), FormatMs(st.max_ms),
                   FormatMs(st.mean_ms));
  if (st.excluded_partial > 0) s += fmt::format(" {} partial or overlapping steps left out.", st.excluded_partial);
  if (!st.outlier_numbers.empty()) {
    s += " Outliers:";
    for (size_t i = 0; i < st.outlier_numbers.size(); ++i) s += fmt::format("{} {}", i ? "," : "", st.outlier_numbers[i]);
    s += ".";
  }
  s += "\n\n";
  if (!st.steps.empty() && !st.whole_window) {
    s += fmt::format("<details><summary>Each step ({})</summary>\n\n| Step | ms |", st.steps.size());
    for (const auto& c : st.categories) s += " " + MdText(c) + " |";
    s += "\n|---:|---:|";
    for (size_t i = 0; i < st.categories.size(); ++i) s += "---:|";
    s += "\n";
    for (const auto& rec : st.steps) {
      s += fmt::format("| {} | {} |", rec.number, FormatMs(rec.duration_ms));
      for (size_t i = 0; i < st.categories.size(); ++i)
        s += " " + (i < rec.category_ms.size() ? FormatMs(rec.category_ms[i]) : std::string("")) + " |";
      s += "\n";
    }
    s += "\n</details>\n\n";
  }
  return s;
}

std::string TopTable(const char* title, const std::vector<TopEvent>& events) {
  if (events.empty()) return "";
  std::string s = fmt::format("<details><summary>{}</summary>\n\n| Name | Total ms | Count | Share |\n|---|---:|---:|---:|\n",
                              title);
  for (const auto& e : events)
    s += fmt::format("| {} | {} | {} | {} |\n", MdCode(render::Shorten(e.name, 100)), FormatMs(e.total_ms), e.count,
                     FormatPct(e.share_pct));
  s += "\n</details>\n\n";
  return s;
}

}  // namespace

std::string RenderMarkdown(const Report& r, const RenderOptions& /*o*/) {
  std::string s = fmt::format("## stepdoctor: {}\n\n{}\n\n", MdText(r.verdict.summary.empty() ? "no verdict" : r.verdict.summary),
                              MdText(CoverageLine(r.coverage)));
  s += fmt::format("**Bottleneck:** {}", MdCode(BottleneckName(r.verdict.bottleneck)));
  if (r.steps.count > 0) s += fmt::format(" · median step **{} ms**", FormatMs(r.steps.median_ms));
  if (!r.inputs.empty()) {
    s += " · ";
    for (size_t i = 0; i < r.inputs.size(); ++i) s += (i ? ", " : "") + MdCode(r.inputs[i]);
  }
  if (!r.format.empty()) s += " (" + MdText(r.format) + ")";
  s += "\n\n### Findings\n\n" + FindingsTable(r);
  if (!r.breakdown.empty()) {
    s += "### Step-time breakdown\n\n| Category | ms/step | Share of step |\n|---|---:|---:|\n";
    for (const auto& b : r.breakdown)
      s += fmt::format("| {} | {} | {} |\n", MdText(b.category), FormatMs(b.ms_per_step), FormatPct(b.pct));
    s += "\n";
  }
  s += StepsPart(r);
  if (!r.devices.empty()) {
    s += "### Devices\n\n| Worker | Device | Compute | Non-compute | Idle | Comm/comp overlap | Kernels |\n"
         "|---|---|---:|---:|---:|---:|---:|\n";
    const std::vector<size_t> shown = DeviceRowsShown(r);
    for (size_t i : shown) {
      const DeviceUtilization& d = r.devices[i];
      s += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", MdText(d.worker), MdText(d.device),
                       FormatPct(d.compute_pct), FormatPct(d.non_compute_pct), FormatPct(d.idle_pct),
                       d.comm_comp_overlap_pct ? FormatPct(*d.comm_comp_overlap_pct) : "–", d.kernel_count);
    }
    if (shown.size() < r.devices.size())
      s += fmt::format("\n{} more devices in the JSON report (the most idle are shown).\n", r.devices.size() - shown.size());
    s += "\n";
  }
  if (!r.workers.empty()) {
    const bool aligned = r.alignment && r.alignment->aligned;
    s += "### Ranks\n\n| Worker | Steps | Median step | Compute | Host | Exposed comm |";
    s += aligned ? " Waits for others | Others wait for it | Last in |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
                 : "\n|---|---:|---:|---:|---:|---:|\n";
    const std::vector<size_t> rows = RankRowsShown(r);
    for (size_t i : rows) {
      const auto& w = r.workers[i];
      s += fmt::format("| {} | {} | {} | {} | {} | {} |", MdText(w.name), w.steps, FormatMs(w.median_step_ms),
                       FormatMs(w.compute_ms), FormatMs(w.host_ms), FormatMs(w.collectives_ms));
      s += aligned ? fmt::format(" {} | {} | {} |\n", FormatMs(w.wait_ms.value_or(0)), FormatMs(w.late_ms.value_or(0)),
                                 FormatPct(w.last_in_pct.value_or(0)))
                   : "\n";
    }
    if (rows.size() < r.workers.size()) s += fmt::format("\n{} more ranks in the JSON report.\n", r.workers.size() - rows.size());
    if (aligned)
      s += fmt::format("\n{} collectives matched on every rank's {}{} over {} steps; clocks aligned on their "
                       "completions (largest offset {}).\n",
                       r.alignment->matched, r.alignment->collectives_on,
                       r.alignment->matched_by == "sequence" ? " by process group and sequence number" : "",
                       r.alignment->steps, FormatMs(r.alignment->max_skew_ms));
    s += "\n";
  }
  s += CollectiveBandwidthMarkdown(r);
  for (const auto& v : r.tensorflow_view) {
    s += fmt::format("### TensorFlow profiler's own verdict ({})\n\n", MdText(v.host));
    s += "- bottleneck: " + MdText(v.bottleneck.empty() ? std::string("–") : v.bottleneck) + "\n";
    if (!v.device.empty()) s += "- device: " + MdText(v.device) + "\n";
    if (v.input_pct) s += "- input: " + FormatPct(*v.input_pct) + " of step time\n";
    if (v.step_ms > 0) s += "- mean step: " + FormatMs(v.step_ms) + (v.steps > 0 ? fmt::format(" over {} steps", v.steps) : "") + "\n";
    if (!v.recommendation.empty()) s += "- TensorFlow says: " + MdText(v.recommendation) + "\n";
    for (const auto& o : v.other_statements) s += "- " + MdText(o) + "\n";
    if (!v.breakdown.empty()) {
      s += "\n| TensorFlow category | ms per step | % of step |\n|---|---:|---:|\n";
      for (const auto& b : v.breakdown)
        s += fmt::format("| {} | {} | {} |\n", MdText(b.category), FormatMs(b.ms_per_step), FormatPct(b.pct));
    }
    if (v.device_idle_pct) s += "\n- device idle (TensorFlow's op statistics): " + FormatPct(*v.device_idle_pct) + "\n";
    if (v.eager_host_pct && *v.eager_host_pct > 0) s += "- host op time run eagerly: " + FormatPct(*v.eager_host_pct) + "\n";
    if (v.eager_device_pct && *v.eager_device_pct > 0) s += "- device op time run eagerly: " + FormatPct(*v.eager_device_pct) + "\n";
    if (!v.op_types.empty()) {
      s += "\n| side | TensorFlow op type | self time | % of the side's busy time | occurrences |\n|---|---|---:|---:|---:|\n";
      for (const auto& t : v.op_types)
        s += fmt::format("| {} | {} | {} | {} | {} |\n", t.where, MdText(t.type), FormatMs(t.self_ms), FormatPct(t.pct),
                         t.occurrences);
    }
    s += "\n";
  }
  s += KernelViewsMarkdown(r);
  s += TopTable("Top kernels by device time (copies and memsets included, named as the trace names them)", r.top_kernels);
  s += TopTable("Top operators by host time (inclusive, summed over calls; % of the window with a call running)", r.top_ops);
  if (!r.notes.empty() || !r.diagnostics.empty()) {
    s += "### Notes\n\n";
    for (const auto& n : r.notes) s += "- " + MdText(n) + "\n";
    for (const auto& d : r.diagnostics) s += "- " + MdText(d) + "\n";
    s += "\n";
  }
  s += fmt::format("<sub>stepdoctor {}</sub>\n", MdText(r.tool_version));
  return s;
}

}  // namespace stepdoctor
