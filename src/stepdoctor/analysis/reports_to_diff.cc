#include "stepdoctor/analysis/reports_to_diff.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "stepdoctor/analysis/event_totals.h"

namespace stepdoctor {
namespace {

DiffSide SideOf(const Report& r) {
  DiffSide s;
  s.inputs = r.inputs;
  s.format = r.format;
  s.verdict = r.verdict;
  s.step_source = r.steps.source;
  s.whole_window = r.steps.whole_window;
  s.step_count = r.steps.count;
  s.median_step_ms = r.steps.median_ms;
  s.mean_step_ms = r.steps.mean_ms;
  s.p90_step_ms = r.steps.p90_ms;
  s.min_step_ms = r.steps.min_ms;
  s.max_step_ms = r.steps.max_ms;
  return s;
}

bool HasSteps(const DiffSide& s) { return !s.whole_window && s.step_count > 0; }

// Whether the change in median step stands out from the steps' own variation: one step on a side
// shows none, and medians that each fall inside the other side's fastest-to-slowest range may
// differ by noise alone. Empty where the change stands clear of both spreads.
std::string StepSpreadNote(const DiffSide& before, const DiffSide& after) {
  auto one = [](const char* side, const DiffSide& s) {
    return fmt::format("{} holds one step: a single step shows no step-to-step variation, so the change in step time "
                       "cannot be told from noise; record several steps (torch.profiler.schedule active=3 or more)",
                       side);
  };
  if (before.step_count == 1) return one("before", before);
  if (after.step_count == 1) return one("after", after);
  auto inside = [](double v, const DiffSide& s) { return s.max_step_ms > 0 && v >= s.min_step_ms && v <= s.max_step_ms; };
  if (before.median_step_ms != after.median_step_ms && inside(before.median_step_ms, after) &&
      inside(after.median_step_ms, before))
    return fmt::format("the change in median step lies inside both runs' own step-to-step spread (before {:.4g}-{:.4g} ms over {} "
                       "steps, after {:.4g}-{:.4g} ms over {}): it may be noise",
                       before.min_step_ms, before.max_step_ms, before.step_count, after.min_step_ms, after.max_step_ms,
                       after.step_count);
  return {};
}

std::optional<double> ChangePct(double before, double after) {
  if (before <= 0) return std::nullopt;
  return 100.0 * (after - before) / before;
}

std::vector<CategoryDelta> CategoryDeltas(const Report& before, const Report& after) {
  std::vector<CategoryDelta> out;
  auto slot = [&out](const std::string& cat) -> CategoryDelta& {
    for (auto& c : out)
      if (c.category == cat) return c;
    out.push_back({});
    out.back().category = cat;
    return out.back();
  };
  for (const auto& b : before.breakdown) {
    CategoryDelta& c = slot(b.category);
    c.before_ms = b.ms_per_step;
    c.before_pct = b.pct;
  }
  for (const auto& a : after.breakdown) {
    CategoryDelta& c = slot(a.category);
    c.after_ms = a.ms_per_step;
    c.after_pct = a.pct;
  }
  // A category empty on both sides (collectives on one GPU) says nothing.
  std::erase_if(out, [](const CategoryDelta& c) { return c.before_ms == 0 && c.after_ms == 0; });
  for (auto& c : out) {
    c.delta_ms = c.after_ms - c.before_ms;
    c.delta_pp = c.after_pct - c.before_pct;
    c.change_pct = ChangePct(c.before_ms, c.after_ms);
  }
  return out;
}

std::vector<FindingDelta> FindingDeltas(const Report& before, const Report& after) {
  std::vector<FindingDelta> out;
  auto slot = [&out](const std::string& id) -> FindingDelta& {
    for (auto& f : out)
      if (f.id == id) return f;
    out.push_back({});
    out.back().id = id;
    return out.back();
  };
  for (const auto& f : before.findings) {
    FindingDelta& d = slot(f.id);
    d.before = f.severity;
    d.before_share_pct = f.share_pct;
    d.after_title = f.title;
  }
  for (const auto& f : after.findings) {
    FindingDelta& d = slot(f.id);
    d.after = f.severity;
    d.after_share_pct = f.share_pct;
    d.after_title = f.title;
  }
  return out;
}

// Joins per-name totals of both sides, scaled by 1/steps, and sorts them into the four groups.
NameChanges NameDeltas(const std::vector<TopEvent>& before, double before_div, const std::vector<TopEvent>& after,
                       double after_div, const DiffOptions& opts) {
  std::unordered_map<std::string, NameDelta> by_name;
  NameChanges out;
  for (const auto& e : before) {
    NameDelta& d = by_name[e.name];
    d.name = e.name;
    d.before_ms = e.total_ms / before_div;
    d.before_count = e.count / before_div;
    out.before_total_ms += d.before_ms;
  }
  for (const auto& e : after) {
    NameDelta& d = by_name[e.name];
    d.name = e.name;
    d.after_ms = e.total_ms / after_div;
    d.after_count = e.count / after_div;
    out.after_total_ms += d.after_ms;
  }
  for (auto& [name, d] : by_name) {
    d.delta_ms = d.after_ms - d.before_ms;
    d.change_pct = ChangePct(d.before_ms, d.after_ms);
    if (d.before_count == 0) {
      out.added.push_back(d);
    } else if (d.after_count == 0) {
      out.removed.push_back(d);
    } else if (std::abs(d.delta_ms) >= opts.min_change_ms && d.change_pct &&
               std::abs(*d.change_pct) >= opts.min_change_pct) {
      (d.delta_ms > 0 ? out.slower : out.faster).push_back(d);
    }
  }
  auto finish = [&opts](std::vector<NameDelta>& v, int& total) {
    std::sort(v.begin(), v.end(), [](const NameDelta& a, const NameDelta& b) {
      double x = std::abs(a.delta_ms), y = std::abs(b.delta_ms);
      return x != y ? x > y : a.name < b.name;
    });
    total = static_cast<int>(v.size());
    if (static_cast<int>(v.size()) > opts.max_rows) v.resize(std::max(0, opts.max_rows));
  };
  finish(out.added, out.added_total);
  finish(out.removed, out.removed_total);
  finish(out.slower, out.slower_total);
  finish(out.faster, out.faster_total);
  return out;
}

}  // namespace

DiffReport ReportsToDiff(const Trace& before_trace, const Report& before, const Trace& after_trace,
                         const Report& after, const DiffOptions& opts) {
  DiffReport d;
  d.tool_version = after.tool_version.empty() ? before.tool_version : after.tool_version;
  d.before = SideOf(before);
  d.after = SideOf(after);
  d.step_delta_ms = d.after.median_step_ms - d.before.median_step_ms;
  d.step_change_pct = ChangePct(d.before.median_step_ms, d.after.median_step_ms);
  if (d.after.median_step_ms > 0) d.speedup = d.before.median_step_ms / d.after.median_step_ms;
  d.verdict_changed = d.before.verdict.bottleneck != d.after.verdict.bottleneck;
  d.categories = CategoryDeltas(before, after);
  d.findings = FindingDeltas(before, after);
  // The loop closed: what the before side predicted for a fix the after side shows made.
  for (const Finding& f : before.findings) {
    if (!f.prediction || !f.prediction->predicted || after.steps.mean_ms <= 0) continue;
    // A larger batch's step is checked only against a run with that batch, which a report does
    // not record: the finding gone may be another fix's doing (compiling, not batching).
    if (f.prediction->batch_scale != 1) continue;
    const Finding* still = nullptr;
    for (const Finding& g : after.findings)
      if (g.id == f.id) still = &g;
    if (still && still->share_pct > kFixAppliedShareRatio * f.share_pct) continue;
    PredictionCheck c;
    c.finding = f.id;
    c.fix = f.prediction->fix;
    c.predicted_step_ms = f.prediction->predicted_step_ms;
    c.low_ms = f.prediction->low_ms;
    c.high_ms = f.prediction->high_ms;
    c.measured_step_ms = after.steps.mean_ms;
    c.measured_median_ms = after.steps.median_ms;
    c.error_pct = 100.0 * (c.predicted_step_ms - c.measured_step_ms) / c.measured_step_ms;
    c.within_range = c.measured_step_ms >= c.low_ms && c.measured_step_ms <= c.high_ms;
    d.predictions.push_back(std::move(c));
  }

  bool both_steps = HasSteps(d.before) && HasSteps(d.after);
  d.per_step = both_steps && d.before.step_count != d.after.step_count;
  d.unit = d.per_step ? "ms/step" : "ms";
  double before_div = d.per_step ? d.before.step_count : 1.0;
  double after_div = d.per_step ? d.after.step_count : 1.0;
  d.kernels = NameDeltas(TotalsByName(before_trace, TotalsScope::kDeviceKernels), before_div,
                         TotalsByName(after_trace, TotalsScope::kDeviceKernels), after_div, opts);
  d.ops = NameDeltas(TotalsByName(before_trace, TotalsScope::kHostOps), before_div,
                     TotalsByName(after_trace, TotalsScope::kHostOps), after_div, opts);

  if (!both_steps) {
    if (!HasSteps(d.before)) d.notes.push_back("before has no step markers: its step time is the whole window");
    if (!HasSteps(d.after)) d.notes.push_back("after has no step markers: its step time is the whole window");
    if (HasSteps(d.before) != HasSteps(d.after))
      d.notes.push_back("kernel and op figures are totals over each trace, which cover different spans");
  } else if (d.per_step) {
    d.notes.push_back("step counts differ, so kernel and op figures are per step (totals over each trace "
                      "divided by its step count)");
  }
  if (both_steps) {
    if (std::string n = StepSpreadNote(d.before, d.after); !n.empty()) d.notes.push_back(std::move(n));
  }
  for (const auto& s : before.diagnostics) d.diagnostics.push_back("before: " + s);
  for (const auto& s : after.diagnostics) d.diagnostics.push_back("after: " + s);
  return d;
}

}  // namespace stepdoctor
