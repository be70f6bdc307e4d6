// What a trace records of each collective kernel: its kind, message size, group size, process
// group and sequence number in that group. PyTorch writes them as args of the
// `record_param_comms` range around the launch ("Collective name", "In msg nelems", "Out msg
// nelems", "dtype", "Group size", "Process Group Name", "Seq"), and Kineto copies them onto the
// NCCL/RCCL kernel it launched; a kernel's own args are read first, the range's (joined through
// the launch's correlation id) fill what they lack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

enum class CollectiveKind : uint8_t {
  kUnknown,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kPointToPoint,  // send, recv, sendrecv: two ranks, not the group
  kBarrier,
  kOther,         // gather, scatter, ... (no bus factor)
};
const char* CollectiveKindName(CollectiveKind k);  // "all_reduce", ..., "unknown"
std::optional<CollectiveKind> CollectiveKindFromName(std::string_view name);  // the inverse
// The kind a collective's name says: PyTorch's "allreduce", "_allgather_base", c10d's
// "nccl:all_reduce", a kernel's "ncclDevKernel_AllReduce_Sum_f32_RING_LL".
CollectiveKind ClassifyCollective(std::string_view name);

// nccl-tests' bus-bandwidth factor for `n` ranks (doc/PERFORMANCE.md): 2(n-1)/n all-reduce;
// (n-1)/n all-gather, reduce-scatter, all-to-all; 1 broadcast and reduce. Absent for the kinds
// it does not define, and where n is not known (n < 1).
std::optional<double> BusBandwidthFactor(CollectiveKind k, int n);

// Message-size buckets, powers of 4 from 1 KiB: [0, 1 KiB), [1, 4 KiB), ..., [256 MiB, 1 GiB),
// [1 GiB, ...).
inline constexpr int kCollectiveSizeBuckets = 12;
int CollectiveSizeBucket(double bytes);
int64_t CollectiveBucketMinBytes(int bucket);
std::optional<int64_t> CollectiveBucketBelowBytes(int bucket);  // absent for the last, open bucket
std::string CollectiveBucketLabel(int bucket);                  // "4-16 MiB", "<1 KiB", ">=1 GiB"

struct CollectiveCall {
  uint32_t timeline = 0;  // index into Trace::timelines of the device stream
  uint32_t event = 0;     // the kernel's index on it
  CollectiveKind kind = CollectiveKind::kUnknown;
  // nccl-tests' message size S: the larger of the input and output messages (the whole array for
  // all-gather and reduce-scatter, where one side is a rank's share). 0: not recorded.
  double bytes = 0;
  int group_size = 0;     // 0: not recorded
  std::string group;      // process group name; empty where not recorded
  int64_t seq = -1;       // sequence number in its group; -1 where not recorded
  // Several kernels launched inside one record_param_comms range are one call: its message is
  // counted on the first (`first_of_call`), its time is theirs together.
  bool first_of_call = true;
  int64_t call_id = -1;   // the range the sizes came from (-1: the kernel's own args)
};

// Every communication kernel on `worker`'s device streams (EventKind::kCollective), in timeline
// order then event order, with what the trace records of it. REQUIRED: trace finalized.
std::vector<CollectiveCall> TraceToCollectiveCalls(const Trace& trace, WorkerId worker);

// Key of a (timeline, event) pair, for maps over the calls.
inline uint64_t CollectiveCallKey(uint32_t timeline, uint32_t event) { return (uint64_t(timeline) << 32) | event; }

}  // namespace stepdoctor
