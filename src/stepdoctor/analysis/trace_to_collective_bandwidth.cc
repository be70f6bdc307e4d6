#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "stepdoctor/analysis/collective_links.h"
#include "stepdoctor/core/checked_time.h"

namespace stepdoctor {
namespace {

// GB/s (1e9 bytes per second) of `bytes` moved in `ms`.
double Gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms / 1e3) / 1e9 : 0; }

// The figure held against the link: the transfer part's where the ranks were aligned.
void SetShareOfPeak(CollectiveBandwidthSummary* bw) {
  for (auto& row : bw->rows) {
    row.busbw_of_peak_pct.reset();
    const std::optional<double> busbw = row.transfer_busbw_gbps ? row.transfer_busbw_gbps : row.busbw_gbps;
    if (row.link < 0 || size_t(row.link) >= bw->links.size() || !busbw) continue;
    const auto& peak = bw->links[size_t(row.link)].peak_gbps;
    if (peak && *peak > 0) row.busbw_of_peak_pct = 100.0 * *busbw / *peak;
  }
}

// Collectives whose bytes say nothing of a link: point-to-point moves between two ranks of the
// group, a barrier moves nothing.
bool Counted(CollectiveKind k) {
  return k != CollectiveKind::kPointToPoint && k != CollectiveKind::kBarrier && k != CollectiveKind::kUnknown;
}

}  // namespace

std::optional<CollectiveBandwidthSummary> TraceToCollectiveBandwidth(const Trace& trace, WorkerId worker) {
  // One sized call: its message once, the time of all its kernels.
  struct Call {
    CollectiveKind kind;
    int group_size;
    double bytes;
    int64_t ns;
    DeviceId device;
  };
  std::vector<Call> calls;
  std::unordered_map<int64_t, size_t> call_of_range;
  for (const CollectiveCall& c : TraceToCollectiveCalls(trace, worker)) {
    const Timeline& t = trace.timelines[c.timeline];
    const int64_t dur = t.ev.dur_ns[c.event];
    if (c.call_id >= 0 && !c.first_of_call) {
      if (auto it = call_of_range.find(c.call_id); it != call_of_range.end())
        calls[it->second].ns = SaturatingAdd(calls[it->second].ns, dur);
      continue;
    }
    if (c.bytes <= 0 || !Counted(c.kind)) continue;
    if (c.call_id >= 0) call_of_range[c.call_id] = calls.size();
    calls.push_back({c.kind, c.group_size, c.bytes, dur, t.device});
  }
  calls.erase(std::remove_if(calls.begin(), calls.end(), [](const Call& c) { return c.ns <= 0; }), calls.end());
  if (calls.empty()) return std::nullopt;

  // The device the calls ran on (the one most of them did), and the GPUs its host has.
  std::map<uint32_t, int> on_device;
  for (const Call& c : calls) ++on_device[c.device.v];
  uint32_t device = on_device.begin()->first;
  for (const auto& [d, n] : on_device)
    if (n > on_device[device]) device = d;
  const std::string device_name = device < trace.devices.size() ? trace.devices[device].name : std::string();
  int gpus = 0;
  for (const Device& d : trace.devices) gpus += d.worker == worker && d.kind == DeviceKind::kGpu;

  CollectiveBandwidthSummary bw;
  std::map<int, int> link_of_group;  // group size -> index into bw.links
  auto link_for = [&](int group_size) {
    auto [it, fresh] = link_of_group.try_emplace(group_size, 0);
    if (fresh) {
      CollectiveLinkInfo l = GuessCollectiveLink(device_name, group_size, gpus);
      auto same = std::find_if(bw.links.begin(), bw.links.end(),
                               [&](const CollectiveLinkInfo& x) { return x.name == l.name && x.basis == l.basis; });
      it->second = int(same - bw.links.begin());
      if (same == bw.links.end()) bw.links.push_back(std::move(l));
    }
    return it->second;
  };

  std::map<std::tuple<CollectiveKind, int, int>, CollectiveBandwidthRow> rows;
  std::map<CollectiveKind, double> kind_ms;
  for (const Call& c : calls) {
    const int bucket = CollectiveSizeBucket(c.bytes);
    CollectiveBandwidthRow& row = rows[{c.kind, c.group_size, bucket}];
    if (row.calls == 0) {
      row.kind = CollectiveKindName(c.kind);
      row.group_size = c.group_size;
      row.size_bucket = CollectiveBucketLabel(bucket);
      row.min_bytes = CollectiveBucketMinBytes(bucket);
      row.below_bytes = CollectiveBucketBelowBytes(bucket);
      row.link = link_for(c.group_size);
    }
    ++row.calls;
    row.bytes += c.bytes;
    row.kernel_ms += c.ns / 1e6;
    kind_ms[c.kind] += c.ns / 1e6;
  }
  for (auto& [key, row] : rows) {
    row.mean_bytes = row.bytes / double(row.calls);
    row.mean_ms = row.kernel_ms / double(row.calls);
    row.algbw_gbps = Gbps(row.bytes, row.kernel_ms);
    if (auto f = BusBandwidthFactor(std::get<0>(key), row.group_size)) row.busbw_gbps = row.algbw_gbps * *f;
    bw.rows.push_back(row);
  }
  // Kinds by their total time, each kind's rows by group size then size (the map's order).
  std::stable_sort(bw.rows.begin(), bw.rows.end(), [&](const auto& a, const auto& b) {
    const double ta = kind_ms[*CollectiveKindFromName(a.kind)], tb = kind_ms[*CollectiveKindFromName(b.kind)];
    return ta != tb ? ta > tb : a.kind < b.kind;
  });
  bw.note = "the kernel times of one rank: each includes the rank's wait for the others to arrive, so the "
            "bandwidths are lower bounds on what the link delivered";
  SetShareOfPeak(&bw);
  return bw;
}

void AddTransferBandwidth(const CrossRank& cross, CollectiveBandwidthSummary* bw) {
  if (!cross.aligned || cross.transfers.empty()) return;
  int added = 0;
  for (const CollectiveTransfer& t : cross.transfers) {
    if (t.calls <= 0 || t.transfer_ms <= 0) continue;
    const std::string kind = CollectiveKindName(t.kind);
    const int64_t min_bytes = CollectiveBucketMinBytes(t.bucket);
    for (auto& row : bw->rows) {
      if (row.kind != kind || row.group_size != t.group_size || row.min_bytes != min_bytes) continue;
      row.includes_waits = false;
      row.transfer_calls = t.calls;
      row.transfer_mean_ms = t.transfer_ms / double(t.calls);
      row.transfer_algbw_gbps = Gbps(t.bytes, t.transfer_ms);
      if (auto f = BusBandwidthFactor(t.kind, t.group_size)) row.transfer_busbw_gbps = *row.transfer_algbw_gbps * *f;
      ++added;
      break;
    }
  }
  if (added == 0) return;
  const bool all = std::none_of(bw->rows.begin(), bw->rows.end(), [](const auto& r) { return r.includes_waits; });
  bw->note = all ? "the ranks were aligned at their collectives: the transfer figures are the calls matched on every rank, "
                   "from the last rank's arrival to the completion; the kernel figures include the waits"
                 : "the ranks were aligned at their collectives: rows with transfer figures are the calls matched on every "
                   "rank, from the last rank's arrival to the completion; the other rows' figures include the waits";
  SetShareOfPeak(bw);
}

}  // namespace stepdoctor
