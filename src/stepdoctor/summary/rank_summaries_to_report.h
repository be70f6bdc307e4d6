// RankSummary... -> Report: the job report of ranks analysed apart (`stepdoctor merge`, and
// `diagnose` on several rank traces, which summarises each first).
//
// The ranks of the job are chosen as from one trace (analysis/analyze.h, ChooseJob: a shared job
// key, steps that overlap in time, rank order); their collectives are matched and their clocks
// aligned (analysis/trace_to_cross_rank); the job's rules (RuleNeeds::kNeedsRanks: straggler,
// rank_imbalance) run over the ranks' figures. The report is then the one of the rank with the
// most events (as a single trace's is of its busiest worker), with the per-rank table, the
// alignment, the job's findings ranked among its own, and every input's devices, diagnostics and
// inputs. Summaries that are not ranks of the job are listed in a note, not lost.
#pragma once

#include <vector>

#include "stepdoctor/report/report.h"
#include "stepdoctor/summary/rank_summary.h"

namespace stepdoctor {

// REQUIRED: at least one summary. The order given is the order read (inputs, devices).
Report RankSummariesToReport(std::vector<RankSummary> ranks);

}  // namespace stepdoctor
