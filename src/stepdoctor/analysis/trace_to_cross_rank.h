// The ranks of one job held against each other at their collectives.
//
// 1. Match: each rank's collectives (communication kernels on its device where every rank has
//    them, else the host's collective ops: gloo, c10d). Where every rank's collectives carry a
//    process group and a sequence number in it (PyTorch's "Process Group Name" and "Seq" args),
//    they are matched by that pair: a collective is matched where every rank has it. Otherwise
//    they are grouped by the step they belong to (a device kernel by the step of the call that
//    launched it) and matched by their place in the step, where every rank has the same
//    collectives in the same order in that step. Point-to-point transfers (send/recv) are left
//    out: they do not synchronise the group.
// 2. Align: a synchronising collective ends at nearly the same instant on every rank, so each
//    rank's clock offset from the first rank's is the median of the differences of their
//    completions. The alignment is refused where, after it, ranks still finish collectives before
//    another rank has arrived at them in more than kMaxInconsistentPct of cases, or where the
//    completions scatter around the offset by more than half a transfer (the clocks drift, or
//    the matching is wrong): no waits are computed from clocks that cannot be trusted.
// 3. Who waits for whom: per collective, the last rank to arrive (its start on the aligned clock)
//    holds the others; its lateness is its arrival minus the next-latest one. Collectives that
//    overlap in time (DDP's buckets in flight together) form one synchronisation; its cost is the
//    largest lateness in it, so overlapping waits are not counted twice. Per step, the lateness
//    each rank causes and the waits it suffers are summed over the step's synchronisations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/analysis/collective_calls.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Fewer matched collectives than this cannot support a clock alignment.
inline constexpr int kMinMatchedCollectives = 3;
// After alignment, a rank may end a collective before another arrived at it (within the
// tolerance below) in at most this share of the matched collectives.
inline constexpr double kMaxInconsistentPct = 20.0;
// The slack allowed in that check: timestamps' own resolution, or 3x the completions' spread
// around the offsets where that is more.
inline constexpr int64_t kAlignToleranceNs = 20'000;
// The completions' spread around a rank's offset may be at most this share of a typical
// transfer (the median over the collectives of their shortest duration on any rank: the last
// rank to arrive waits for nobody), or kAlignToleranceNs where that is more; a wider spread is
// clocks drifting apart, not one offset.
inline constexpr double kMaxSpreadOfTransfer = 0.5;

struct RankInput {
  WorkerId worker;
  const StepWindows* steps = nullptr;  // the rank's steps (REQUIRED, not null)
};

// A rank's collectives on its own clock: what matching them across ranks reads, and what a
// rank's summary keeps of them (summary/rank_summary.h), so that ranks analysed apart, even on
// different machines, are compared as if read together.
struct RankCollectives {
  struct Record {
    int64_t step = 0;      // the step it belongs to (a device kernel: the step that launched it)
    uint32_t name = 0;     // index into `names`
    int64_t start_ns = 0, end_ns = 0;
    // What the trace records of the call (analysis/collective_calls), where it does: device
    // kernels only.
    int32_t group = -1;    // its process group: index into `groups`; -1 not recorded
    int64_t seq = -1;      // its sequence number in that group; -1 not recorded
    CollectiveKind kind = CollectiveKind::kUnknown;
    int32_t group_size = 0;  // 0: not recorded
    double bytes = 0;      // message size (nccl-tests' S); 0: not recorded, or not the call's first kernel
  };
  // Every collective of the rank, in steps or not (point-to-point and enqueue-only host ops
  // excluded): which side every rank has them on decides the side matched.
  int64_t device_total = 0, host_total = 0;
  std::vector<std::string> names;
  std::vector<std::string> groups;   // process group names, where recorded
  std::vector<Record> device, host;  // those inside steps, by step then start
};

// REQUIRED: trace finalized.
RankCollectives TraceToRankCollectives(const Trace& trace, const RankInput& rank);

struct RankAlignment {
  double clock_skew_ms = 0;     // subtracted from this rank's times to put them on the first rank's clock
  double skew_spread_ms = 0;    // median absolute deviation of its completions around that offset
  int last_in = 0;              // matched collectives at which it arrived last
  double last_in_pct = 0;       // of the matched collectives
  double late_ms_per_step = 0;  // the others' wait for it per step: its lateness behind the next-latest rank
  double wait_ms_per_step = 0;  // its own wait for later ranks per step
};

struct CollectiveKindStats {  // the matched collectives of one name (a kernel name up to its arguments)
  std::string name;
  int calls = 0;
  double mean_wait_ms = 0;      // mean over the calls of the others' mean wait for the last rank
  double mean_transfer_ms = 0;  // mean over the calls of the time from the last arrival to the completion
};

// The matched collectives of one kind, group size and message-size bucket on the aligned clock:
// their transfer part, the last rank's arrival to the completion (the median rank's).
struct CollectiveTransfer {
  CollectiveKind kind = CollectiveKind::kUnknown;
  int group_size = 0;
  int bucket = 0;          // CollectiveSizeBucket of each call's bytes
  int64_t calls = 0;
  double bytes = 0;        // total
  double transfer_ms = 0;  // total
};

struct CrossRank {
  bool attempted = false;       // two or more ranks, each with collectives
  bool aligned = false;
  std::string why_not;          // attempted and not aligned: the reason, one sentence
  std::string collectives_on;   // "device" or "host": which side's collectives were matched
  std::string matched_by;       // "sequence" (process group and sequence number) or "step order"
  int matched = 0;              // collectives matched on every rank
  int steps = 0;                // steps with matched collectives (the per-step figures' divisor)
  // Step order: steps left out, their collectives differ between ranks. Sequence: the first
  // rank's steps holding a collective some other rank lacks (that collective is left out).
  int unmatched_steps = 0;
  int inconsistent = 0;         // matched collectives a rank ends before another arrives, after alignment
  std::vector<RankAlignment> ranks;  // in the order given; ranks[0] is the reference clock
  std::vector<CollectiveKindStats> kinds;  // by total wait, largest first
  std::vector<CollectiveTransfer> transfers;  // aligned: the matched collectives with a recorded size
};

// `ranks` in report order (the first is the reference clock).
CrossRank RankCollectivesToCrossRank(const std::vector<const RankCollectives*>& ranks);

// Both of the above. REQUIRED: trace finalized.
CrossRank TraceToCrossRank(const Trace& trace, const std::vector<RankInput>& ranks);

}  // namespace stepdoctor
