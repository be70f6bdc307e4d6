// A GPU log of a few snapshots far apart (a cron job's nvidia-smi every few minutes, a person's
// checks of a shared machine): each sample is a moment of the GPU (its utilisation averages a
// fraction of a second), and what ran between them is not in the log. Findings read from the
// utilisation say so, stay at most moderate and give no gain figure.
#pragma once

#include <vector>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// Samples this far apart or more (the median spacing) ...
inline constexpr double kSnapshotIntervalS = 60.0;
// ... and fewer than this many: snapshots, not a series a mean of which says how busy the GPU was.
inline constexpr int64_t kSnapshotMaxSamples = 30;

bool IsSnapshotLog(const ResourceSignals& r);
void HoldBackSnapshotFindings(const ResourceSignals& r, std::vector<Finding>* findings);

}  // namespace stepdoctor
