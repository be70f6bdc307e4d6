// Trace -> Report: the whole analysis pipeline behind `stepdoctor diagnose`.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"
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
};

Report AnalyzeTrace(const Trace& trace, const AnalyzeOptions& opts = {});

}  // namespace stepdoctor
