#include "stepdoctor/analysis/scalars_to_summary.h"

#include <algorithm>
#include <cmath>

#include "stepdoctor/analysis/tf_event_stalls.h"

namespace stepdoctor {

const char* ScalarTrendName(ScalarTrend t) {
  switch (t) {
    case ScalarTrend::kTooFewPoints: return "too_few_points";
    case ScalarTrend::kFlat: return "flat";
    case ScalarTrend::kFalling: return "falling";
    case ScalarTrend::kRising: return "rising";
  }
  return "too_few_points";
}

void ScalarSeriesTrend(const ScalarSeries& s, ScalarTrend* trend, std::optional<double>* change_pct) {
  *trend = ScalarTrend::kTooFewPoints;
  change_pct->reset();
  size_t n = std::min(s.value.size(), s.step.size());
  if (n < kTrendMinPoints) return;
  size_t from = n / 2;
  double k = double(n - from), mx = 0, my = 0;
  for (size_t i = from; i < n; ++i) {
    mx += double(s.step[i]);
    my += s.value[i];
  }
  mx /= k;
  my /= k;
  double sxy = 0, sxx = 0;
  for (size_t i = from; i < n; ++i) {
    sxy += (double(s.step[i]) - mx) * (s.value[i] - my);
    sxx += (double(s.step[i]) - mx) * (double(s.step[i]) - mx);
  }
  *trend = ScalarTrend::kFlat;
  // All points at one step, or values around zero: no relative change to speak of.
  if (sxx <= 0 || my == 0) return;
  double pct = 100.0 * sxy / sxx * double(s.step[n - 1] - s.step[from]) / std::fabs(my);
  *change_pct = pct;
  if (pct <= -kTrendFlatPct) *trend = ScalarTrend::kFalling;
  else if (pct >= kTrendFlatPct) *trend = ScalarTrend::kRising;
}

ScalarsSummary ScalarsToSummary(const ImportResult& imported) {
  const Trace& t = imported.trace;
  ScalarsSummary out;
  out.stall_factor = kStallFactor;
  for (const auto& f : imported.files) out.inputs.push_back(f.path);

  std::vector<const ScalarSeries*> order;
  for (const auto& s : t.scalars)
    if (!s.value.empty() && !s.step.empty() && !s.wall_time_s.empty()) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const ScalarSeries* a, const ScalarSeries* b) {
    return a->run != b->run ? a->run < b->run : a->tag < b->tag;
  });
  for (const ScalarSeries* s : order) {
    ScalarTagSummary g;
    g.run = s->run;
    g.tag = s->tag;
    g.count = static_cast<int64_t>(s->value.size());
    g.first_step = s->step.front();
    g.last_step = s->step.back();
    g.last_value = s->value.back();
    auto [mn, mx] = std::minmax_element(s->value.begin(), s->value.end());
    g.min_value = *mn;
    g.max_value = *mx;
    ScalarSeriesTrend(*s, &g.trend, &g.trend_change_pct);
    double wall = s->wall_time_s.back() - s->wall_time_s.front();
    double rate = wall > 0 ? double(g.last_step - g.first_step) / wall : 0;
    if (rate > 0) g.steps_per_second = rate;
    out.tags.push_back(std::move(g));
  }

  for (auto& r : ScalarsToEventStalls(t.scalars)) {
    ScalarRunStalls run;
    run.run = r.run;
    run.first_step = r.first_step;
    run.last_step = r.last_step;
    run.seconds_per_step = r.seconds_per_step;
    run.steps_per_second = r.steps_per_second;
    run.wall_s = r.wall_s;
    for (const auto& st : r.stalls) {
      run.stalls.push_back({st.step, st.gap_s, st.excess_s});
      run.lost_s += st.excess_s;
    }
    run.stall_share_pct = r.stall_share_pct;
    run.period_steps = r.period_steps;
    out.runs.push_back(std::move(run));
  }

  // Files of a folder that are not read at all: one line, not one per file (a logdir holds
  // scripts, checkpoints, plugin data); `inspect` names each with its reason.
  size_t skipped = 0;
  for (const auto& f : imported.files) skipped += f.error.empty() ? 0 : 1;
  if (skipped > 0)
    out.notes.push_back(std::to_string(skipped) + (skipped == 1 ? " file" : " files") +
                        " skipped: not read as an event file or trace (`stepdoctor inspect` names each and why)");
  for (const auto& [issue, note] : t.diagnostics.notes())
    if (issue == ImportIssue::kCorruptRecord || issue == ImportIssue::kTruncatedInput) out.notes.push_back(note);
  // Points the event-file reader left out because a wall time or step number was past the range.
  for (ImportIssue issue : {ImportIssue::kTimeOutOfRange, ImportIssue::kValueOutOfRange})
    if (uint64_t n = t.diagnostics.count(issue))
      out.notes.push_back(std::to_string(n) + " " + std::string(GetImportIssueInfo(issue).description));
  return out;
}

}  // namespace stepdoctor
