// The `comm:devices=N[,link=L]` fix: the job scaled to N devices (each keeping its batch and its
// compute), every collective re-timed by an alpha-beta ring model, then the step replayed. A
// collective's measured time is split into the ring's latency (NCCL's tuning model: a base plus
// one hop's latency per ring step) and its bandwidth part; the bandwidth part scales with
// nccl-tests' bus factor for the new group size and with the new link's peak against the
// recorded one (the share of the peak the job achieved stays as measured); the latency part is
// the new ring's. docs/whatif.md lists the figures and their sources.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/collective_calls.h"
#include "stepdoctor/analysis/step_model.h"
#include "stepdoctor/report/whatif.h"

namespace stepdoctor {

enum class LinkHop : uint8_t { kNvlink, kPcie, kNetwork };

// A link the fix may name, with its documented per-GPU, one-direction peak (collective_links.h).
struct CommLink {
  std::string_view name;  // "nvlink4", "pcie4", "ib-ndr", ...
  std::string_view label; // "NVLink 4 (H100/H200 SXM)"
  double peak_gbps;
  LinkHop hop;
};
// The named links, for parsing and help: nvlink2/3/4, pcie3/4/5, ib-hdr, ib-ndr, 100gbe, 400gbe.
const std::vector<CommLink>& CommLinks();
const CommLink* FindCommLink(std::string_view name);

// NCCL's ring latencies (src/graph/tuning.cc, its baseLat and hwLat tables), in us: the base of a
// ring collective and the latency of one hop, for the LL protocol (small messages: the low end)
// and the Simple protocol (large messages: the point and the high end).
struct RingLatency {
  double base_us;
  double hop_us;
};
RingLatency NcclRingLatency(LinkHop hop, bool simple);

// The ring steps of a `kind` collective over `n` ranks: 2(n-1) for all-reduce, n-1 for the others
// (all-gather, reduce-scatter, all-to-all, broadcast, reduce); 0 for point-to-point and unknown kinds.
int RingSteps(CollectiveKind kind, int n);

// A ring's latency in us over `n` ranks on `nodes` hosts: the base, plus each step's hop, the
// steps between hosts (2(nodes-1) for all-reduce, nodes-1 for the others) at the network's.
double RingLatencyUs(CollectiveKind kind, int n, int nodes, LinkHop intra, bool simple);

// One collective's time once scaled: `t0_us` measured over `n0` ranks with a ring latency of
// `lat0_us`; over `n1` ranks with `lat1_us`, on a link `peak_ratio` times the recorded one's peak.
// The bandwidth part is what the measured time leaves past the latency (at least a tenth of it: a
// call shorter than its modelled latency still moved its bytes), scaled by the bus factors'
// ratio (2(n-1)/n for all-reduce, (n-1)/n for the others) and the peaks'.
double ScaledCollectiveUs(CollectiveKind kind, double t0_us, int n0, double lat0_us, int n1, double lat1_us,
                          double peak_ratio);

struct FixSpec;
// Fills `p` (baseline set by PredictFix) for the comm fix on `m`.
void PredictCommScale(const StepModel& m, const FixSpec& fix, Prediction* p);

}  // namespace stepdoctor
