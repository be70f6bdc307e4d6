// collective_bound's bandwidth evidence: the achieved bus bandwidth of the sized collectives
// (analysis/trace_to_collective_bandwidth), held against the link they most likely ran over, and
// what it says:
//   - most of the sized collective time in small messages (kCollectiveSmallMessageBytes,
//     kCollectiveLatencyBoundPct): latency-bound, each call's fixed start-up cost sets its time,
//     so fewer, larger messages help, whatever the link;
//   - the larger messages far below the link's peak (kCollectiveBusbwFarBelowPct): the link or
//     the topology delivers less than it can, unless the figure includes waits for a late rank
//     (one rank's trace), which read as a slow link;
//   - else the link is well used: the lever is overlap, or less communication.
#include <algorithm>
#include <string_view>

#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {
namespace {

// Every evidence label this file writes starts so, and these are its figures: what it replaces.
constexpr std::string_view kLabelPrefix = "bandwidth";
constexpr const char* kFigureNames[] = {"small_message_time_pct", "busbw_gbps", "link_peak_gbps", "busbw_of_peak_pct"};
constexpr size_t kRowsShown = 4;

std::string Size(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

const CollectiveLinkInfo* LinkOf(const CollectiveBandwidthSummary& bw, const CollectiveBandwidthRow& r) {
  return r.link >= 0 && size_t(r.link) < bw.links.size() ? &bw.links[size_t(r.link)] : nullptr;
}

std::string RowValue(const CollectiveBandwidthSummary& bw, const CollectiveBandwidthRow& r) {
  std::string v = fmt::format("{} calls, {} each, {:.2f} ms each", r.calls, Size(r.mean_bytes), r.mean_ms);
  if (r.busbw_gbps)
    v += fmt::format(": {:.1f} GB/s bus bandwidth ({:.1f} GB/s algorithm)", *r.busbw_gbps, r.algbw_gbps);
  else
    v += fmt::format(": {:.1f} GB/s algorithm bandwidth", r.algbw_gbps);
  if (r.transfer_busbw_gbps)
    v += fmt::format(" over the whole kernel; {:.1f} GB/s over the transfer part ({:.2f} ms each, {} calls matched on "
                     "every rank)",
                     *r.transfer_busbw_gbps, r.transfer_mean_ms.value_or(0), r.transfer_calls.value_or(0));
  else
    v += ", waits for other ranks included";
  const CollectiveLinkInfo* l = LinkOf(bw, r);
  if (r.busbw_of_peak_pct && l && l->peak_gbps)
    v += fmt::format("; {} of {}'s {:.4g} GB/s each way", Pct(*r.busbw_of_peak_pct), l->name, *l->peak_gbps);
  return v;
}

}  // namespace

void SetCollectiveBandwidthEvidence(const CollectiveBandwidthSummary& bw, Finding* f) {
  auto& ev = f->evidence;
  ev.erase(std::remove_if(ev.begin(), ev.end(),
                          [](const EvidenceItem& e) { return std::string_view(e.label).substr(0, kLabelPrefix.size()) == kLabelPrefix; }),
           ev.end());
  auto& fig = f->figures;
  fig.erase(std::remove_if(fig.begin(), fig.end(),
                           [](const auto& x) {
                             return std::any_of(std::begin(kFigureNames), std::end(kFigureNames),
                                                [&](const char* n) { return x.first == n; });
                           }),
            fig.end());
  if (bw.rows.empty()) return;

  // The rows by their time, largest first.
  std::vector<const CollectiveBandwidthRow*> rows;
  for (const auto& r : bw.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->kernel_ms > b->kernel_ms; });
  for (size_t i = 0; i < rows.size() && i < kRowsShown; ++i) {
    const auto& r = *rows[i];
    ev.push_back({fmt::format("bandwidth: {} of {} over {} ranks", r.kind, r.size_bucket, r.group_size), RowValue(bw, r)});
  }

  // The link of the rows holding most of the time.
  const CollectiveLinkInfo* link = LinkOf(bw, *rows.front());
  if (link) ev.push_back({"bandwidth: link", fmt::format("{}: {}", link->name, link->basis)});

  double total_ms = 0, small_ms = 0, large_ms = 0, large_share = 0, large_busbw = 0, large_busbw_ms = 0;
  bool waits = false;
  for (const auto* r : rows) {
    total_ms += r->kernel_ms;
    if (r->mean_bytes < kCollectiveSmallMessageBytes) {
      small_ms += r->kernel_ms;
      continue;
    }
    const std::optional<double> busbw = r->transfer_busbw_gbps ? r->transfer_busbw_gbps : r->busbw_gbps;
    if (busbw) {
      large_busbw += *busbw * r->kernel_ms;
      large_busbw_ms += r->kernel_ms;
    }
    if (r->busbw_of_peak_pct) {
      large_share += *r->busbw_of_peak_pct * r->kernel_ms;
      large_ms += r->kernel_ms;
      waits |= r->includes_waits;
    }
  }
  const double small_pct = total_ms > 0 ? 100.0 * small_ms / total_ms : 0;
  fig.push_back({"small_message_time_pct", small_pct});
  if (large_busbw_ms > 0) fig.push_back({"busbw_gbps", large_busbw / large_busbw_ms});
  if (link && link->peak_gbps) fig.push_back({"link_peak_gbps", *link->peak_gbps});
  if (large_ms > 0) fig.push_back({"busbw_of_peak_pct", large_share / large_ms});

  std::string verdict;
  if (small_pct >= kCollectiveLatencyBoundPct) {
    verdict = fmt::format(
        "latency-bound: {} of the sized collective time is in messages under {}, whose time is mostly each call's "
        "fixed start-up cost rather than the link; send fewer, larger ones (larger DDP buckets: bucket_cap_mb; "
        "FSDP/ZeRO bucket sizes; coalesced collectives)",
        Pct(small_pct), Size(kCollectiveSmallMessageBytes));
  } else if (large_ms > 0) {
    const double share = large_share / large_ms;
    if (share < kCollectiveBusbwFarBelowPct) {
      verdict = fmt::format(
          "messages of {} and more reach {} of the link's peak: the link or the topology delivers far less than it "
          "can; NCCL_DEBUG=INFO names the transport NCCL chose (P2P/NVLink, SHM through the host, or the network) "
          "and its rings; check the GPUs' and NICs' placement (nvidia-smi topo -m)",
          Size(kCollectiveSmallMessageBytes), Pct(share));
      if (waits)
        verdict += "; these figures include the rank's waits for the others (one rank's trace): a late rank reads as a "
                   "slow link, so diagnose the ranks' traces together to take the waits out";
    } else {
      verdict = fmt::format("messages of {} and more reach {} of the link's peak: the link is well used; the lever is "
                            "overlap with compute, or less communication",
                            Size(kCollectiveSmallMessageBytes), Pct(share));
    }
  }
  if (!verdict.empty()) ev.push_back({"bandwidth: what it says", verdict});
}

}  // namespace stepdoctor::rules
