// A rank's analysis kept for later (`stepdoctor summarize`), so that the ranks of a job, each
// analysed where its trace lies, merge into one job report (`stepdoctor merge`, or `diagnose` on
// a folder of summaries) without their traces. It holds what the job report reads: the rank
// analysed alone (its whole report), its figures for the per-rank table, the span of its steps,
// and its collectives on its own clock (for matching them across ranks and aligning clocks).
// `diagnose` on several rank traces goes through the same summaries, so both give the same report.
#pragma once

#include <cstdint>
#include <string>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// 1: the first layout (docs/distributed.md, "What a summary holds").
inline constexpr int kSummaryVersion = 1;

struct RankSummary {
  std::string tool_version;
  // Who: the worker the trace holds.
  std::string hostname;
  int rank = -1;
  int world_size = -1;
  std::string source_path;
  bool communicates = false;  // any collective on its host or devices
  uint64_t events = 0;        // the job report describes the rank with the most
  // Its steps (absent: no step markers or inferred iterations, so it cannot be held against others).
  bool has_steps = false;
  int64_t steps_start_ns = 0, steps_end_ns = 0;
  WorkerStepFigures figures;
  RankCollectives collectives;
  Report report;  // the rank analysed alone, lanes and series included
};

}  // namespace stepdoctor
