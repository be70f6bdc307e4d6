// JSON for the critical path and the kernel tables, shared by the diagnose report (render/json)
// and `whatif --format json` (render/whatif_render). Keys in docs/json-report.md.
#pragma once

#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/report/critical_path.h"
#include "stepdoctor/report/kernel_tables.h"

namespace stepdoctor {

// An array, one object per step; each step's `segments` where the summary kept them.
void WriteCriticalPathSteps(JsonWriter& j, const CriticalPathSummary& c);
// The diagnose report's object: the median step, every step's totals, the median step's segments.
void WriteCriticalPath(JsonWriter& j, const CriticalPathSummary& c);
void WriteKernelTables(JsonWriter& j, const KernelTables& k);

}  // namespace stepdoctor
