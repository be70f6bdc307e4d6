// Trace -> Report: the whole analysis pipeline behind `stepdoctor diagnose`.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct AnalyzeOptions {
  int max_top_events = 10;  // rows in the top kernels / top ops tables
  int max_lanes = 32;       // timeline lanes kept for the HTML chart
  int lane_buckets = 600;   // busy intervals per lane after downsampling
};

Report AnalyzeTrace(const Trace& trace, const AnalyzeOptions& opts = {});

}  // namespace stepdoctor
