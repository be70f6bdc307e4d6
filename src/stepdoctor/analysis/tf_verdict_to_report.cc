#include "stepdoctor/analysis/tf_verdict_to_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace stepdoctor {
namespace {

// Fills what `into` lacks from `from` (the same host's other page).
void FillGaps(TensorFlowView& into, const TfProfilerVerdict& from) {
  if (!into.input_pct && from.input_pct >= 0) into.input_pct = from.input_pct;
  if (into.step_ms == 0) into.step_ms = from.step_ms;
  if (into.steps == 0) into.steps = from.steps;
  // Shares of TF's mean step; where its categories add up to more (a page whose mean counts a
  // step of zero length), of their sum, so no category holds more than the whole.
  double sum = 0;
  for (const auto& [name, ms] : from.breakdown_ms) sum += ms;
  const double base = std::max(from.step_ms, sum);
  if (into.breakdown.empty())
    for (const auto& [name, ms] : from.breakdown_ms)
      if (ms > 0)  // TF lists every category; those it measured as zero say nothing here
        into.breakdown.push_back({name, ms, base > 0 ? 100.0 * ms / base : 0});
  if (into.device.empty()) into.device = from.device;
  if (into.bottleneck.empty()) into.bottleneck = from.bottleneck;
  if (into.recommendation.empty()) into.recommendation = from.statement;
  if (into.other_statements.empty()) into.other_statements = from.other_statements;
  if (from.op_stats && into.op_types.empty() && !into.device_idle_pct) {
    if (from.device_idle_pct >= 0) into.device_idle_pct = from.device_idle_pct;
    for (const auto& o : from.op_types)
      into.op_types.push_back({o.device ? "device" : "host", o.type, o.occurrences, o.self_ms, o.pct});
    into.eager_device_pct = from.eager_device_pct;
    into.eager_host_pct = from.eager_host_pct;
  }
}

// What TensorFlow's op statistics say where no page gives a recommendation: the device's idle
// share and the op type that holds most of its busy time.
std::string OpStatsSummary(const TensorFlowView& v) {
  std::string s;
  if (v.device_idle_pct) s = fmt::format("the device is idle {:.1f}% of its profiled time", *v.device_idle_pct);
  for (const auto& o : v.op_types)
    if (o.where == "device") {
      s += fmt::format("{}most of its busy time is {} ({:.1f}%)", s.empty() ? "" : "; ", o.type, o.pct);
      break;
    }
  if (v.eager_host_pct && *v.eager_host_pct >= kTfEagerNotePct)
    s += fmt::format("; {:.1f}% of the host's op time runs eagerly (outside tf.function)", *v.eager_host_pct);
  return s;
}

}  // namespace

void TfVerdictsToReport(const Trace& trace, Report* r) {
  if (trace.tf_verdicts.empty()) return;
  // One view per host: its overview page first (it holds the recommendation), then its
  // input-pipeline page filling what the overview lacks.
  std::map<std::string, TensorFlowView> by_host;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& v : trace.tf_verdicts) {
      if (v.overview != (pass == 0)) continue;
      TensorFlowView& view = by_host[v.host];
      view.host = v.host;
      if (view.source.empty()) view.source = v.source;
      FillGaps(view, v);
    }

  const BreakdownEntry* ours = nullptr;
  for (const auto& b : r->breakdown)
    if (b.category == "input") ours = &b;
  for (auto& [host, view] : by_host) {
    if (ours && view.input_pct && std::fabs(*view.input_pct - ours->pct) > kTfInputDisagreementPts)
      r->diagnostics.push_back(fmt::format(
          "TensorFlow's profiler puts input at {:.1f}% of step time on {}, stepdoctor at {:.1f}%: they differ by more "
          "than {:.0f} points (different steps profiled, or input counted differently)",
          *view.input_pct, host, ours->pct, kTfInputDisagreementPts));
    r->tensorflow_view.push_back(std::move(view));
  }
  if (trace.EventCount() == 0 && r->findings.empty() && !r->tensorflow_view.empty()) {
    const TensorFlowView& v = r->tensorflow_view.front();
    const std::string stats = OpStatsSummary(v);
    r->verdict.summary = !v.recommendation.empty() ? "no trace in the inputs; TensorFlow's profiler says: " + v.recommendation
                         : !stats.empty()          ? "no trace in the inputs; TensorFlow's op statistics: " + stats
                                                   : "no trace in the inputs; TensorFlow's profiler says: (no recommendation)";
    r->coverage.framework = FrameworkName(trace.framework);
    r->coverage.device_activity = "analysis_pages";
    r->coverage.confidence = "low";
    r->coverage.evidence = {"TensorFlow profiler's analysis pages only: its own figures, no events to check them against"};
    r->notes.push_back("only TensorFlow's analysis pages were read: stepdoctor's own breakdown needs the raw profile "
                       "(<host>.xplane.pb or <host>.trace.json.gz)");
  }
}

}  // namespace stepdoctor
