// Trace -> KernelTables: each top operator's kernels, launch-delay outliers, the device work split
// by class and each stream's queue of launched, not yet started work, over all of one worker's
// events (the scope of the report's top_kernels and top_ops).
//
// A launch delay is a device operation's start minus the start of the runtime call that launched
// it (by correlation id). Under a graph launch many kernels share one correlation id: only the
// first to start has a launch delay; the others wait on the graph's earlier kernels, not on the
// launch. An outlier is a delay over max(kDelayOutlierFactor x the median delay,
// kDelayOutlierFloorUs). The queue of a stream counts operations whose launch call has started and
// which have not started on the device.
#pragma once

#include <vector>

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/kernel_tables.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// A launch delay this many times the trace's median delay is an outlier (judged against the
// trace's own typical delay, so a device that runs far behind its host does not flag everything)...
inline constexpr double kDelayOutlierFactor = 10.0;
// ...and never under this: delays below 1 ms do not make a step slow by themselves.
inline constexpr double kDelayOutlierFloorUs = 1000.0;

// `top_ops` as in the report (their names are looked up); `lo` is the report's window start.
KernelTables TraceToKernelTables(const Trace& trace, WorkerId worker, const std::vector<TopEvent>& top_ops, int64_t lo);

}  // namespace stepdoctor
