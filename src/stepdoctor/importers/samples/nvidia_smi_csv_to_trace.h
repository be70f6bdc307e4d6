// GPU logs as CSV -> Trace::counters: `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,
// memory.used,... --format=csv[,nounits]`, and the hand-rolled variants training scripts and
// monitors write (elapsed_sec,gpu_util_pct,mem_used_mb,... / Date,Time,Utilization,Memory Used).
// Columns are matched by name through gpu_csv_columns' table; unknown ones are ignored; each
// row's GPU and time come from GpuRowPlacer. Quoted fields may span lines (RFC 4180); a value
// that is not a number is counted (kBadCounterValue) and skipped, a row with too few fields is
// counted (kMalformedEvent).
#pragma once

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

Status ImportGpuCsv(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
