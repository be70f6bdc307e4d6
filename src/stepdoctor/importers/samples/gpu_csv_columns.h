// What a GPU log's CSV header names mean: the one table of column spellings (nvidia-smi's
// `utilization.gpu [%]`, a script's `gpu_util_pct`, a home-made `Memory Used`), read by the
// CSV importer to map columns onto series and by format detection to recognise a GPU log from
// its header alone (a one-column `utilization.gpu [%]` log has no comma to look for).
//
// Names match case-insensitively with ' ', '_', '.', '-' and '/' equivalent; a unit may follow
// in brackets (`[MiB]`, `(W)`) or as a last word (`mem_used_mb`, `power_w`, `util %`).
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/model/series_names.h"

namespace stepdoctor::gpucsv {

enum class ColumnKind {
  kIgnore,     // not a column we read (fan.speed, pstate, ...)
  kTimestamp,  // a point in time: epoch seconds, nvidia-smi's date and time, ISO 8601
  kDate,       // the date half of a Date,Time pair (the time half is kTimestamp)
  kElapsed,    // seconds since the log started
  kGpuIndex,   // a GPU's number (index, gpu_index, gpu)
  kGpuUuid,    // GPU-5a1c...
  kGpuBusId,   // 00000000:07:00.0
  kGpuName,    // NVIDIA A100-SXM4-40GB: names the GPU, tells apart only GPUs of different models
  kMetric,     // a GpuMetric series
  kMemFree,    // memory.free: with memory.used, the GPU's memory where no total is logged
};

struct ColumnMeaning {
  ColumnKind kind = ColumnKind::kIgnore;
  series::GpuMetric metric = series::GpuMetric::kUtilPct;  // for kMetric
  // To the series' unit: bytes for memory, seconds for times. 0 for memory without a unit:
  // MiB (nvidia-smi's unit with `nounits`) unless the values can only be bytes.
  double scale = 1;
};

// A header name, lower-cased, separators folded to '_', the unit taken off: "memory_used" and
// "mib" for "Memory.Used [MiB]".
struct NormalisedHeader {
  std::string name;
  std::string unit;
};
NormalisedHeader NormaliseHeader(std::string_view header);

ColumnMeaning ClassifyHeader(std::string_view header);

// True when a CSV header line (one or more comma-separated names) names a GPU metric column;
// a header of one column only when it is spelled as a query field (brackets, '.' or '_').
bool NamesAGpuMetric(std::string_view header_line);

// The column names the importer's refusal lists.
std::string_view ExpectedColumnsText();

}  // namespace stepdoctor::gpucsv
