#include "stepdoctor/analysis/job_ranks.h"

#include <algorithm>
#include <map>

#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor {
namespace {

// Whether a worker communicates: any collective, on its host or its devices.
bool HasCollectives(const Trace& trace, WorkerId w) {
  for (const auto& t : trace.timelines)
    if (t.worker == w && std::find(t.ev.kind.begin(), t.ev.kind.end(), EventKind::kCollective) != t.ev.kind.end())
      return true;
  return false;
}

}  // namespace

// The primary worker's steps and step signals, already found, are reused. Without a stated world
// size, only workers that communicate can be ranks of one job: a folder of runs recorded one
// after another (a sweep) by a profiler whose clock starts at zero looks like ranks by name and
// time alone.
JobRanks TraceToJobRanks(const Trace& trace, WorkerId primary, const StepWindows& primary_windows,
                         const StepSignals& primary_steps) {
  JobRanks all;
  std::vector<RankCandidate> candidates;
  // Ranks recorded without steps (one window each, a single pass) are compared window to
  // window where no rank has steps: each window then holds the same collectives.
  std::vector<StepWindows> wins(trace.workers.size());
  bool any_stepped = false;
  for (size_t i = 0; i < trace.workers.size(); ++i) {
    WorkerId w{uint32_t(i)};
    if (trace.worker(w).world_size < 2 && !HasCollectives(trace, w)) continue;
    const bool is_primary = primary.valid() && w.v == primary.v;
    wins[i] = is_primary ? primary_windows : TraceToSteps(trace, w);
    any_stepped |= !wins[i].whole_window && !wins[i].steps.empty();
  }
  for (size_t i = 0; i < trace.workers.size(); ++i) {
    WorkerId w{uint32_t(i)};
    if (trace.worker(w).world_size < 2 && !HasCollectives(trace, w)) continue;
    const bool is_primary = primary.valid() && w.v == primary.v;
    StepWindows win = std::move(wins[i]);
    if (win.steps.empty() || (win.whole_window && (any_stepped || !HasCollectives(trace, w)))) continue;
    StepSignals s = is_primary ? primary_steps : TraceToStepSignals(trace, w, win);
    const Worker& wk = trace.worker(w);
    candidates.push_back({JobKey(wk.world_size, wk.source_path), wk.rank, win.steps.front().start_ns,
                          win.steps.back().end_ns});
    all.figures.push_back(StepSignalsToWorkerFigures(wk, s));
    all.ids.push_back(w);
    all.windows.push_back(std::move(win));
  }
  JobRanks out;
  for (size_t i : ChooseJob(candidates)) {
    out.figures.push_back(std::move(all.figures[i]));
    out.ids.push_back(all.ids[i]);
    out.windows.push_back(std::move(all.windows[i]));
  }
  return out;
}

WorkerStepFigures StepSignalsToWorkerFigures(const Worker& wk, const StepSignals& s) {
  WorkerStepFigures f;
  f.rank = wk.rank;
  f.name = wk.hostname + (wk.rank >= 0 ? " (rank " + std::to_string(wk.rank) + ")" : "");
  f.steps = s.step_count;
  f.median_step_ms = s.median_step_ms;
  f.compute_ms = s.category_ms[int(StepCategory::kDeviceCompute)];
  f.collectives_ms = s.category_ms[int(StepCategory::kCollectives)];
  f.input_ms = s.category_ms[int(StepCategory::kInput)];
  f.host_ms = s.category_ms[int(StepCategory::kInput)] + s.category_ms[int(StepCategory::kKernelLaunch)] +
              s.category_ms[int(StepCategory::kHostCompute)];
  f.step_numbers = s.step_numbers;
  f.step_ms = s.step_ms;
  return f;
}

std::string JobKey(int world_size, const std::string& source_path) {
  if (world_size >= 2) return "world " + std::to_string(world_size);
  size_t slash = source_path.find_last_of('/');
  std::string dir = slash == std::string::npos ? std::string() : source_path.substr(0, slash);
  std::string stem;
  for (char c : source_path.substr(slash == std::string::npos ? 0 : slash + 1))
    if (c < '0' || c > '9') stem += c;
  return "files " + dir + "/" + stem;
}

std::vector<size_t> ChooseJob(const std::vector<RankCandidate>& c) {
  std::map<std::string, std::vector<size_t>> jobs;
  for (size_t i = 0; i < c.size(); ++i) jobs[c[i].key].push_back(i);
  std::vector<size_t> out;
  for (auto& [key, members] : jobs) {
    const RankCandidate& first = c[members.front()];
    std::vector<size_t> same_time;
    for (size_t i : members)
      if (c[i].steps_start_ns < first.steps_end_ns && first.steps_start_ns < c[i].steps_end_ns) same_time.push_back(i);
    std::stable_sort(same_time.begin(), same_time.end(), [&](size_t a, size_t b) { return c[a].rank < c[b].rank; });
    if (same_time.size() >= 2 && same_time.size() > out.size()) out = std::move(same_time);
  }
  return out;
}

void FillJobRows(const std::vector<WorkerStepFigures>& ranks, const CrossRank& cross, Report* r) {
  for (size_t i = 0; i < ranks.size(); ++i) {
    const auto& w = ranks[i];
    WorkerRow row;
    row.name = w.name;
    row.rank = w.rank;
    row.steps = w.steps;
    row.median_step_ms = w.median_step_ms;
    row.compute_ms = w.compute_ms;
    row.host_ms = w.host_ms;
    row.collectives_ms = w.collectives_ms;
    row.input_ms = w.input_ms;
    row.step_numbers = w.step_numbers;
    row.step_ms = w.step_ms;
    if (cross.aligned && i < cross.ranks.size()) {
      const RankAlignment& a = cross.ranks[i];
      row.wait_ms = a.wait_ms_per_step;
      row.late_ms = a.late_ms_per_step;
      row.last_in_pct = a.last_in_pct;
      row.clock_skew_ms = a.clock_skew_ms;
    }
    r->workers.push_back(std::move(row));
  }
  if (!cross.attempted) return;
  RankAlignmentSummary a;
  a.aligned = cross.aligned;
  a.why_not = cross.why_not;
  a.collectives_on = cross.collectives_on;
  a.matched = cross.matched;
  a.steps = cross.steps;
  a.unmatched_steps = cross.unmatched_steps;
  a.matched_by = cross.matched_by;
  for (const auto& rk : cross.ranks) a.max_skew_ms = std::max(a.max_skew_ms, std::abs(rk.clock_skew_ms));
  for (const auto& k : cross.kinds) a.collectives.push_back({k.name, k.calls, k.mean_wait_ms, k.mean_transfer_ms});
  r->alignment = std::move(a);
  if (!cross.aligned) r->notes.push_back("ranks not compared at their collectives: " + cross.why_not);
  // The transfer part of the sized collectives, and the finding that quotes their bandwidth.
  if (r->collective_bandwidth && cross.aligned) {
    AddTransferBandwidth(cross, &*r->collective_bandwidth);
    for (Finding& f : r->findings)
      if (f.id == "collective_bound") rules::SetCollectiveBandwidthEvidence(*r->collective_bandwidth, &f);
  }
}

}  // namespace stepdoctor
