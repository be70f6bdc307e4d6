// The achieved bandwidth of a trace's collectives, by kind and message size, held against the
// link they most likely ran over (analysis/trace_to_collective_bandwidth). Plain data, printed by
// every renderer; docs/distributed.md has the definitions and the links' documented peaks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepdoctor {

// The link a group of ranks most likely communicated over, and its documented peak.
struct CollectiveLinkInfo {
  std::string kind = "unknown";   // nvlink, pcie, network, none (one rank: nothing crosses a link), unknown
  std::string name;               // "NVLink 3 (A100 SXM4)", "PCIe Gen4 x16", "unknown link"
  // Per GPU, one direction, GB/s (1e9 bytes per second): what bus bandwidth is held against.
  // Absent where the link, or its speed, cannot be told from the trace.
  std::optional<double> peak_gbps;
  std::string basis;              // what decided it: the device name, the ranks against the GPUs on a host
};

// The sized calls of one collective kind, group size and message-size bucket. Bandwidths in GB/s
// (1e9 bytes per second), nccl-tests' definitions: algbw = bytes / time, busbw = algbw x the
// kind's factor (2(n-1)/n all-reduce; (n-1)/n all-gather, reduce-scatter, all-to-all; 1
// broadcast and reduce).
struct CollectiveBandwidthRow {
  std::string kind;               // all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, other
  int group_size = 0;             // ranks in the collective (0: not recorded)
  std::string size_bucket;        // "4-16 MiB": the bucket of each call's message size
  int64_t min_bytes = 0;          // the bucket: [min_bytes, below_bytes)
  std::optional<int64_t> below_bytes;  // absent for the last, open bucket
  int64_t calls = 0;
  double bytes = 0;               // total message bytes of the calls (nccl-tests' S, summed)
  double mean_bytes = 0;          // per call
  double kernel_ms = 0;           // total device time of their kernels, waits for other ranks included
  double mean_ms = 0;             // per call
  double algbw_gbps = 0;          // from the whole kernel time
  std::optional<double> busbw_gbps;  // absent for kinds without a bus factor (other), or without a group size
  // Where the ranks were aligned at their collectives: the same calls' transfer part only (the
  // last rank's arrival to the completion), over the calls matched on every rank. Absent
  // otherwise: then the figures above include the waits.
  bool includes_waits = true;
  std::optional<int64_t> transfer_calls;
  std::optional<double> transfer_mean_ms;
  std::optional<double> transfer_algbw_gbps;
  std::optional<double> transfer_busbw_gbps;
  int link = -1;                  // index into CollectiveBandwidthSummary::links
  // The transfer busbw where known, else the whole-kernel one, as a share of the link's peak.
  std::optional<double> busbw_of_peak_pct;
};

struct CollectiveBandwidthSummary {
  std::vector<CollectiveLinkInfo> links;
  std::vector<CollectiveBandwidthRow> rows;  // by the kind's total time, then group size, then bucket
  std::string note;                          // what the figures include, one sentence
};

}  // namespace stepdoctor
