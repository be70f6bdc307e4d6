// The columns of a GPU CSV log written without its header row (`nvidia-smi --query-gpu=...
// --format=csv,noheader[,nounits]`), told from the values of its first rows, claiming only what
// the values support:
//   - a date and time is the timestamp; whole numbers that cycle 0,1,..,N-1,0,1,.. (N >= 2) are
//     the GPU index; `NVIDIA ...`, `Tesla ...` the name; `GPU-...` the uuid; `0000:07:00.0` the bus id;
//   - with units: the first `%` is utilization.gpu and a second utilization.memory, the first `W`
//     power.draw and a second power.limit, the first `MHz` clocks.sm (nvidia-smi's usual query
//     order); of the memory columns, two whose sum is constant while they vary are used and free
//     (the first taken as used), one constant at or above every other memory column is the total,
//     and the one left is used; a unitless whole-number column 0..120 after a `%` column is the
//     temperature;
//   - without units (nounits): only time, an optional cycling index, a column 0..100
//     (utilization.gpu) and a column reaching above 100 (memory.used in MiB), in that order.
// Anything else is left unread, or refused where nothing can be read.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/importers/samples/gpu_csv_columns.h"

namespace stepdoctor::gpucsv {

// True when a CSV record reads as a row of nvidia-smi values rather than a header: two or more
// fields, each a date and time, a number with or without its unit, [N/A], a GPU uuid, bus id or
// model name, and at least one a number.
bool LooksLikeHeaderlessRow(const std::vector<std::string>& fields);

struct HeaderlessColumns {
  std::vector<ColumnMeaning> col;  // one per field of the first row
  std::vector<std::string> name;   // the --query-gpu field each column was taken as ("" unread)
  std::string note;                // "columns read as 1 timestamp, 2 utilization.gpu (first %), ..."
  std::string error;               // set where the columns cannot be told: why
};

// REQUIRED: rows is not empty; rows[0] passed LooksLikeHeaderlessRow. Rows shorter than the
// first are left out of the judgement.
HeaderlessColumns InferHeaderlessColumns(const std::vector<std::vector<std::string>>& rows);

}  // namespace stepdoctor::gpucsv
