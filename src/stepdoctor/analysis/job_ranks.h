// The ranks of one job read together: which workers they are (the same world size where the
// traces say, else files named alike that communicate), their per-rank figures, and the per-rank
// table and alignment summary of the report. AnalyzeTrace (several workers in one trace) and the
// rank summaries' merge (summary/rank_summaries_to_report) both use them.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// A rank's figures for the per-rank table, from its step signals.
WorkerStepFigures StepSignalsToWorkerFigures(const Worker& worker, const StepSignals& s);

// Workers that can be ranks of one job share a key: the same world size where the traces say
// (Kineto's distributedInfo); else files in one folder whose names differ only in digits
// (rank0.json, rank1.json).
std::string JobKey(int world_size, const std::string& source_path);

// One candidate rank: its job key, rank (-1 unknown) and its steps' span.
struct RankCandidate {
  std::string key;
  int rank = -1;
  int64_t steps_start_ns = 0, steps_end_ns = 0;
};
// The largest job of two or more candidates: those sharing a key whose steps overlap the first
// one's in time (ranks run together; a folder of runs recorded one after another is not a job),
// in rank order where known, else in the order given. Indices into `candidates`; empty: no job.
std::vector<size_t> ChooseJob(const std::vector<RankCandidate>& candidates);

// The per-rank table, the alignment summary and its note, from the ranks' figures and their
// comparison at collectives.
void FillJobRows(const std::vector<WorkerStepFigures>& ranks, const CrossRank& cross, Report* r);

// The ranks of the largest job with two or more workers that have steps: their step figures,
// and the steps found for each (handed to the cross-rank analysis, not found again).
struct JobRanks {
  std::vector<WorkerStepFigures> figures;
  std::vector<WorkerId> ids;
  std::vector<StepWindows> windows;
};

// The job's ranks among the trace's workers; the primary worker's steps and step signals, already
// found, are reused. Workers without steps that communicate are compared window to window where
// no worker has steps.
JobRanks TraceToJobRanks(const Trace& trace, WorkerId primary, const StepWindows& primary_windows,
                         const StepSignals& primary_steps);

}  // namespace stepdoctor
