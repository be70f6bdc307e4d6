// Achieved bandwidth of the collectives whose message sizes the trace records
// (analysis/collective_calls: PyTorch's record_param_comms args, or Kineto's copy of them on the
// kernel), per collective kind, group size and message-size bucket, with nccl-tests' definitions:
//   algorithm bandwidth = bytes / time
//   bus bandwidth       = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather,
//                         reduce-scatter and all-to-all, x 1 for broadcast and reduce,
// so that it can be held against the peak of the link the group most likely ran over
// (analysis/collective_links). One rank's trace gives the whole kernel time, which includes its
// wait for the other ranks to arrive; where the ranks were aligned at their collectives
// (analysis/trace_to_cross_rank) the transfer part alone (the last arrival to the completion) is
// added beside it.
#pragma once

#include <optional>
#include <vector>

#include "stepdoctor/analysis/collective_calls.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/collectives.h"

namespace stepdoctor {

// REQUIRED: trace finalized. Every sized call of `worker` (point-to-point and barriers left out;
// calls of several kernels counted once, their time together). Absent where none is sized.
std::optional<CollectiveBandwidthSummary> TraceToCollectiveBandwidth(const Trace& trace, WorkerId worker);

// Adds the transfer-only figures of `cross` (aligned) to the rows of the same kind, group size and
// bucket, and says so in the note. No-op where the ranks were not aligned.
void AddTransferBandwidth(const CrossRank& cross, CollectiveBandwidthSummary* bw);

}  // namespace stepdoctor
