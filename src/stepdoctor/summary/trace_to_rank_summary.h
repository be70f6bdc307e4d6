// Trace (one rank) -> RankSummary: the rank analysed alone, with what merging needs beside it.
#pragma once

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/core/result.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/summary/rank_summary.h"

namespace stepdoctor {

// Whether `trace` is one rank of a distributed job: one worker with events, with a world size
// of two or more or collectives of its own. Only such traces are summarised.
bool IsRankTrace(const Trace& trace);

// REQUIRED: trace finalized. Any trace of one worker is summarised (one that is no rank is
// reported beside the job when merged); an error, naming `source`, where it holds no worker with
// events or several.
Result<RankSummary> TraceToRankSummary(const Trace& trace, const std::string& source, const AnalyzeOptions& opts = {});

}  // namespace stepdoctor

namespace stepdoctor {

// Whether files read apart (ImportOptions::keep_parts) are the ranks of one job, to be reported
// through their summaries: two or more, each one rank's trace (IsRankTrace).
bool ArePartsRanks(const std::vector<Trace>& parts);

// Each part finalized, summarised and read back as `merge` reads a summary file, then the job
// report (summary/rank_summaries_to_report.h): `diagnose` on the traces and `merge` on their
// summaries give the same report. Each part is released once summarised.
Result<Report> RankTracesToReport(std::vector<Trace>&& parts, const std::vector<std::string>& paths,
                                  const AnalyzeOptions& opts = {});

}  // namespace stepdoctor
