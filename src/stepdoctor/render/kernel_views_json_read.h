// The critical path and the kernel tables of the JSON report read back: the inverse of
// render/kernel_views_json's WriteCriticalPath and WriteKernelTables (keys in docs/json-report.md).
#pragma once

#include "stepdoctor/render/json_reader.h"
#include "stepdoctor/report/critical_path.h"
#include "stepdoctor/report/kernel_tables.h"

namespace stepdoctor::json_read {

// The diagnose report's object. Only the median step's segments are written, so only it gets
// them back.
Status ReadCriticalPath(const Obj& o, CriticalPathSummary* c);
Status ReadKernelTables(const Obj& o, KernelTables* k);

}  // namespace stepdoctor::json_read
