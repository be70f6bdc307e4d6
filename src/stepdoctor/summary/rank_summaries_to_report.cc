#include "stepdoctor/summary/rank_summaries_to_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/job_ranks.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/verdict.h"

namespace stepdoctor {
namespace {

// Diagnostics of several inputs as one list: counted lines of the same kind ("12 events with a
// negative duration dropped") summed, the rest kept once each, in the order first seen.
std::vector<std::string> MergeDiagnostics(const std::vector<RankSummary>& ranks) {
  std::vector<std::string> order;
  std::map<std::string, uint64_t> counted;  // the text after the count -> the sum
  std::map<std::string, bool> seen;
  for (const auto& s : ranks)
    for (const std::string& line : s.report.diagnostics) {
      size_t digits = 0;
      while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
      if (digits > 0 && digits < 19 && digits < line.size() && line[digits] == ' ') {
        const std::string what = line.substr(digits + 1);
        auto [it, fresh] = counted.try_emplace(what, 0);
        it->second += std::stoull(line.substr(0, digits));
        if (fresh) order.push_back("\x01" + what);
      } else if (!seen[line]) {
        seen[line] = true;
        order.push_back(line);
      }
    }
  for (std::string& line : order)
    if (!line.empty() && line[0] == '\x01') {
      const std::string what = line.substr(1);
      line = fmt::format("{} {}", counted[what], what);
    }
  return order;
}

// The rules that judge the ranks of a job (RuleNeeds::kNeedsRanks).
std::vector<RuleDef> JobRules(bool device_missing) {
  std::vector<RuleDef> out;
  for (const RuleDef& r : AllRules())
    if ((r.needs & kNeedsRanks) && !(device_missing && (r.needs & kNeedsDeviceActivity))) out.push_back(r);
  return out;
}

}  // namespace

Report RankSummariesToReport(std::vector<RankSummary> ranks) {
  // The job: ranks with steps that share a key and ran together.
  std::vector<RankCandidate> candidates;
  std::vector<size_t> candidate_of;  // candidate index -> summary index
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& s = ranks[i];
    if (!s.has_steps || (s.world_size < 2 && !s.communicates)) continue;
    candidates.push_back({JobKey(s.world_size, s.source_path), s.rank, s.steps_start_ns, s.steps_end_ns});
    candidate_of.push_back(i);
  }
  std::vector<size_t> job;
  for (size_t c : ChooseJob(candidates)) job.push_back(candidate_of[c]);

  // The report described: the job's rank with the most events (the first such), else any input's.
  size_t primary = job.empty() ? 0 : job.front();
  for (size_t i : job.empty() ? std::vector<size_t>() : job)
    if (ranks[i].events > ranks[primary].events) primary = i;
  if (job.empty())
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].events > ranks[primary].events) primary = i;

  Report r = ranks[primary].report;
  r.inputs.clear();
  r.devices.clear();
  for (const auto& s : ranks) {
    r.inputs.insert(r.inputs.end(), s.report.inputs.begin(), s.report.inputs.end());
    r.devices.insert(r.devices.end(), s.report.devices.begin(), s.report.devices.end());
  }
  r.diagnostics = MergeDiagnostics(ranks);
  if (ranks.size() > 1)
    r.notes.push_back(fmt::format("{} workers read; step figures are for {} (the one with the most events)",
                                  ranks.size(), ranks[primary].hostname));
  std::vector<std::string> outside;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (std::find(job.begin(), job.end(), i) == job.end() && i != primary) outside.push_back(ranks[i].source_path);
  if (!outside.empty() && !job.empty())
    r.notes.push_back(fmt::format("{} input(s) not ranks of this job (no steps, another job, or another time), "
                                  "shown in devices and inputs only: {}",
                                  outside.size(), fmt::join(outside, ", ")));
  if (job.size() < 2) return r;

  std::vector<WorkerStepFigures> figures;
  std::vector<const RankCollectives*> collectives;
  for (size_t i : job) {
    figures.push_back(ranks[i].figures);
    collectives.push_back(&ranks[i].collectives);
  }
  CrossRank cross = RankCollectivesToCrossRank(collectives);
  FillJobRows(figures, cross, &r);

  // The job's findings, ranked among the rank's own. A window too short to judge keeps none that
  // names a bottleneck (as AnalyzeTrace drops them).
  const bool device_missing = r.coverage.device_activity == "missing";
  const bool too_short = r.steps.count > 0 && r.steps.mean_ms * r.steps.count * 1e6 < double(kMinAnalysableWindowNs);
  StepSignals steps;  // what the runner and the verdict read of the steps
  steps.step_count = r.steps.count;
  steps.median_step_ms = r.steps.median_ms;
  steps.device_missing = device_missing;
  Signals sig;
  sig.steps = r.steps.count > 0 ? &steps : nullptr;
  sig.workers = figures;
  if (cross.attempted) sig.cross_rank = &cross;
  std::vector<Finding> found = RunRules(JobRules(device_missing), sig, &r.diagnostics);
  if (too_short)
    found.erase(std::remove_if(found.begin(), found.end(),
                               [](const Finding& f) { return BottleneckOf(f) != Bottleneck::kUnknown; }),
                found.end());
  if (found.empty()) return r;
  r.findings.insert(r.findings.end(), found.begin(), found.end());
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.share_pct > b.share_pct;
  });
  // The verdict follows the findings, except where the rank's own says the device side is missing
  // (a host-only verdict) or the window is too short to judge.
  if (!device_missing && !too_short && r.steps.count > 0) r.verdict = MakeVerdict(r.findings, &steps);
  return r;
}

}  // namespace stepdoctor
