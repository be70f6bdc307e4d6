#include "stepdoctor/summary/trace_to_rank_summary.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "stepdoctor/analysis/job_ranks.h"
#include "stepdoctor/io/byte_source.h"

#include "stepdoctor/summary/rank_summaries_to_report.h"
#include "stepdoctor/summary/summary_file.h"

namespace stepdoctor {
namespace {

// The workers that own events, and whether each communicates.
std::vector<std::pair<WorkerId, bool>> WorkersWithEvents(const Trace& trace) {
  std::vector<std::pair<WorkerId, bool>> out;
  for (size_t i = 0; i < trace.workers.size(); ++i) {
    WorkerId w{uint32_t(i)};
    bool events = false, collectives = false;
    for (const auto& t : trace.timelines) {
      if (t.worker != w || t.ev.size() == 0) continue;
      events = true;
      collectives |= std::find(t.ev.kind.begin(), t.ev.kind.end(), EventKind::kCollective) != t.ev.kind.end();
      if (collectives) break;
    }
    if (events) out.push_back({w, collectives});
  }
  return out;
}

}  // namespace

bool IsRankTrace(const Trace& trace) {
  auto w = WorkersWithEvents(trace);
  return w.size() == 1 && (trace.worker(w[0].first).world_size >= 2 || w[0].second);
}

Result<RankSummary> TraceToRankSummary(const Trace& trace, const std::string& source, const AnalyzeOptions& opts) {
  auto workers = WorkersWithEvents(trace);
  if (workers.empty()) return Result<RankSummary>(ErrorCode::kEmptyInput, source + ": no trace events to summarise");
  if (workers.size() > 1)
    return Result<RankSummary>(ErrorCode::kInvalidArgument,
                               source + ": " + std::to_string(workers.size()) +
                                   " workers in one input; a summary holds one rank: summarise each rank's trace");
  RankSummary s;
  AnalysisDetail detail;
  s.report = AnalyzeTrace(trace, opts, &detail);
  s.tool_version = s.report.tool_version;
  const WorkerId w = workers[0].first;
  const Worker& wk = trace.worker(w);
  s.hostname = wk.hostname;
  s.rank = wk.rank;
  s.world_size = wk.world_size;
  s.source_path = wk.source_path;
  s.communicates = workers[0].second;
  s.events = trace.EventCount();
  const StepWindows& win = detail.windows;
  // A rank without steps that communicates is compared window to window (one pass each, the same
  // collectives in each): its window stands for its one step.
  if (detail.worker.valid() && detail.worker.v == w.v && !win.steps.empty() && (!win.whole_window || s.communicates)) {
    s.has_steps = true;
    s.steps_start_ns = win.steps.front().start_ns;
    s.steps_end_ns = win.steps.back().end_ns;
    s.figures = StepSignalsToWorkerFigures(wk, detail.steps);
    s.collectives = TraceToRankCollectives(trace, {w, &win});
  } else {
    s.figures = StepSignalsToWorkerFigures(wk, StepSignals{});
  }
  return s;
}

bool ArePartsRanks(const std::vector<Trace>& parts) {
  return parts.size() >= 2 && std::all_of(parts.begin(), parts.end(), [](const Trace& t) { return IsRankTrace(t); });
}

Result<Report> RankTracesToReport(std::vector<Trace>&& parts, const std::vector<std::string>& paths,
                                  const AnalyzeOptions& opts) {
  // Ranks are summarised on up to WorkerThreads() threads, one rank per thread at a time; each
  // part is released once summarised. The result does not depend on the thread count.
  std::vector<std::optional<Result<RankSummary>>> done(parts.size());
  auto summarise = [&](size_t i) {
    const std::string source = i < paths.size() ? paths[i] : "input " + std::to_string(i + 1);
    Trace t = std::move(parts[i]);
    t.Finalize();
    auto s = TraceToRankSummary(t, source, opts);
    if (!s.ok()) {
      done[i] = s;
      return;
    }
    // Read back as `merge` reads a summary file, so both give the same report.
    auto back = SummaryFromJson(SummaryToJson(*s), source);
    done[i] = back.ok() ? std::move(back) : Result<RankSummary>(ErrorCode::kInternal, back.message());
  };
  const size_t threads = std::min<size_t>(parts.size(), size_t(std::max(1, WorkerThreads())));
  if (threads <= 1) {
    for (size_t i = 0; i < parts.size(); ++i) summarise(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t k = 0; k < threads; ++k)
      pool.emplace_back([&] {
        for (size_t i = next++; i < done.size(); i = next++) summarise(i);
      });
    for (auto& th : pool) th.join();
  }
  parts.clear();
  std::vector<RankSummary> summaries;
  for (auto& d : done) {
    if (!d->ok()) return d->status();
    summaries.push_back(std::move(d->value()));
  }
  return RankSummariesToReport(std::move(summaries));
}

}  // namespace stepdoctor
