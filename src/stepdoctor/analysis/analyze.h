// Trace -> Report: the whole analysis pipeline behind `stepdoctor diagnose`.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/io_bench_report.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct AnalyzeOptions {
  // Rows in the top kernels / top ops tables: it can only lower the count. The step signals
  // keep the top 10 of each (trace_to_step_signals), so a value above 10 still gives 10 rows.
  int max_top_events = 10;
  int max_lanes = 32;       // timeline lanes kept for the HTML chart
  int lane_buckets = 600;   // busy intervals per lane after downsampling
  int cores = 0;            // CPU cores of the machine that ran the job, for predictions (0: from
                            // live samples where the input has them, else unknown)
  // The input side (diagnose --data): what the storage under the dataset delivered, probed by the
  // caller (iobench/storage_probe); null: not probed. With it, input_bound and
  // tfdata_bottleneck_stage say whether storage or the CPU is the limit (analysis/input_limit).
  const IoBenchReport* storage = nullptr;
  double samples_per_step = 0;  // samples each step reads (the batch size); 0: unknown
  double bytes_per_sample = 0;  // 0: the dataset's mean small-file size, an estimate
  int data_readers = 0;         // the job's parallel readers; 0: from the trace
};

// What the analysis found on the way that a caller may keep: the primary worker's steps and
// their figures (summary/trace_to_rank_summary keeps them in a rank's summary).
struct AnalysisDetail {
  WorkerId worker;
  StepWindows windows;
  StepSignals steps;
};

Report AnalyzeTrace(const Trace& trace, const AnalyzeOptions& opts = {}, AnalysisDetail* detail = nullptr);

// The report's lines for what the import skipped or repaired: "N <what>" per kind, then the notes.
std::vector<std::string> ImportDiagnosticLines(const ImportDiagnostics& d);

}  // namespace stepdoctor
