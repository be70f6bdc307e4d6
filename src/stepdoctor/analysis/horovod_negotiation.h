// Trace -> which rank the others wait for in a Horovod timeline. Horovod's coordinator writes,
// inside each tensor's NEGOTIATE_* phase, one marker per rank (the rank's number as the name) as
// that rank reports the tensor ready; the collective starts once the last one has. The last rank
// in a negotiation holds every other rank for the time between its marker and the next-latest's.
#pragma once

#include <cstdint>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct HorovodLateRanks {
  struct Rank {
    int rank = 0;
    int64_t last_in = 0;   // negotiations it was ready last in (alone: ties count for none)
    double late_ms = 0;    // the time, in all, between the next-latest rank's marker and its own where it was
                           // last (the union over negotiations: tensors negotiate side by side)
  };
  int64_t negotiations = 0;  // NEGOTIATE_* phases with two or more rank markers
  int64_t broadcasts = 0;    // of them, NEGOTIATE_BROADCAST: the start-up broadcast of the initial weights
  int ranks = 0;             // the ranks seen (highest marker + 1)
  double wait_ms = 0;        // the time some rank had reported ready and waited for the last (a union)
  std::vector<Rank> by_rank; // ranks that were ever last, the most late time first
};

// REQUIRED: trace finalized. Empty (negotiations 0) where the worker's timelines hold no markers.
// Only negotiations that start in [from_ns, to_ns) count: the steps, where they were found (the
// start-up broadcast before the first step is no step's wait).
HorovodLateRanks TraceToHorovodLateRanks(const Trace& trace, WorkerId worker, int64_t from_ns = INT64_MIN,
                                         int64_t to_ns = INT64_MAX);

// The sizes of a Horovod timeline's all-reduces, where it records them (the ALLREDUCE phase's end
// carries the tensor's dtype and shape): how much time large messages take, which fusing more
// tensors into one cannot shorten.
struct HorovodAllreduceSizes {
  int64_t sized = 0;             // ALLREDUCE phases with a dtype and shape read
  double sized_ms = 0;           // their time, summed
  double bytes = 0;              // their bytes, summed
  double largest_bytes = 0;
  double largest_ms = 0;         // the time of the largest one
  double large_ms = 0;           // time in messages of kHorovodFusionDefaultBytes or more
};
// Horovod's default fusion threshold (HOROVOD_FUSION_THRESHOLD): 64 MiB.
inline constexpr double kHorovodFusionDefaultBytes = 64.0 * 1024 * 1024;

// Over ALLREDUCE phases that start in [from_ns, to_ns). REQUIRED: trace finalized.
HorovodAllreduceSizes TraceToHorovodAllreduceSizes(const Trace& trace, WorkerId worker, int64_t from_ns = INT64_MIN,
                                                   int64_t to_ns = INT64_MAX);

// The broadcasts of a Horovod timeline that holds nothing else: no all-reduce, all-gather,
// all-to-all or reduce-scatter phase, only the start-up broadcast of the initial weights and
// optimizer state (hvd.broadcast_parameters, BroadcastGlobalVariablesHook), which runs once,
// before the first training step. 0 where any other collective phase is in the worker's
// timelines, or none at all.
int64_t HorovodStartupBroadcastsOnly(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
