// Two runs -> DiffReport: what changed between BEFORE and AFTER (`stepdoctor diff`).
// Step and category figures come from each side's Report; per-name kernel and op totals come
// from the traces (analysis/event_totals), since a Report keeps only its top rows.
#pragma once

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/diff.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct DiffOptions {
  int max_rows = 15;            // rows kept in each of added/removed/slower/faster
  double min_change_pct = 5;    // a name is slower/faster only when its time changed by this much...
  double min_change_ms = 0.05;  // ...and by at least this many ms (per step, or in total)
};

// REQUIRED: each report was made by AnalyzeTrace from the trace passed beside it.
DiffReport ReportsToDiff(const Trace& before_trace, const Report& before, const Trace& after_trace,
                         const Report& after, const DiffOptions& opts = {});

}  // namespace stepdoctor
