// Totals per event name (time and count), for top-N tables and for `diff`.
#pragma once

#include <vector>

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

enum class TotalsScope {
  kDeviceKernels,  // kernels, communication kernels, memcpy and memset on device streams
  kHostOps,        // framework ops on host threads, bookkeeping ops (kFrameworkOverhead) included
                   // (every level: totals are inclusive)
};

// Sorted by total time, descending. share_pct: kernels, of the summed kernel time; host operators
// (which nest, and run at once on several threads), the time in which a call of the operator
// runs (its calls' union) as a share of the span from the first operator's start to the last
// one's end, for the kWallShareNames longest; the rest, their summed time over that span.
// `worker` invalid = all.
inline constexpr size_t kWallShareNames = 64;
std::vector<TopEvent> TotalsByName(const Trace& trace, TotalsScope scope, WorkerId worker = {});

}  // namespace stepdoctor
