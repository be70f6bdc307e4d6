// nvidia-smi's default table, printed again and again (`while true; do nvidia-smi; sleep 60;
// done >> gpu.log`, `nvidia-smi -l 5`, a saved `watch nvidia-smi`) -> Trace::counters, the same
// per-GPU series the CSV importer writes: util_pct, mem_used_bytes, mem_total_bytes, power_w,
// power_limit_w, temp_celsius, and proc_mem_bytes (the Processes box's memory, summed per GPU).
//
// A snapshot is timed by the date line above its banner ("Sun Jun 30 00:23:37 2024", local
// time) or by `watch`'s header; snapshots without one are spaced by an assumed interval (the
// `watch` interval where stated) and noted as assumed_timing. "N/A" is absent, not bad; a value
// that is not a number is counted (kBadCounterValue), a GPU line without its figures line is
// counted (kMalformedEvent, or kTruncatedInput at the end of a cut file). Lines outside any
// table are skipped and noted. A file with a table but no GPU rows is refused (kEmptyInput).
#pragma once

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

Status ImportNvidiaSmiTable(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
