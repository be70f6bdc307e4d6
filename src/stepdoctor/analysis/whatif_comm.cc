#include "stepdoctor/analysis/whatif_comm.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "stepdoctor/analysis/collective_links.h"
#include "stepdoctor/analysis/whatif.h"
#include "stepdoctor/analysis/whatif_replay.h"

namespace stepdoctor {
namespace {

using namespace whatif_replay;

// NCCL 2.x's tuning model (src/graph/tuning.cc): ring base latency LL 3.6 us, Simple 8.4 us; one
// hop's latency, LL / Simple: NVLink 0.47 / 3.4 us, PCIe 1.0 / 5.7 us, network 2.7 / 9.6 us.
constexpr double kRingBaseUs[2] = {3.6, 8.4};
constexpr double kHopUs[3][2] = {{0.47, 3.4}, {1.0, 5.7}, {2.7, 9.6}};
// The pessimistic end: the bandwidth part this much slower than the measured share of the peak
// gives (a ring over more hops, or over the network, rarely keeps the share a smaller one had).
constexpr double kCommScaleSlack = 0.15;

LinkHop HopOf(const CollectiveLinkInfo& l) {
  return l.kind == "nvlink" ? LinkHop::kNvlink : l.kind == "network" ? LinkHop::kNetwork : LinkHop::kPcie;
}

}  // namespace

const std::vector<CommLink>& CommLinks() {
  static const std::vector<CommLink> links = {
      {"nvlink2", "NVLink 2 (V100 SXM2)", kNvlink2V100Gbps, LinkHop::kNvlink},
      {"nvlink3", "NVLink 3 (A100 SXM4)", kNvlink3A100Gbps, LinkHop::kNvlink},
      {"nvlink4", "NVLink 4 (H100/H200 SXM)", kNvlink4H100Gbps, LinkHop::kNvlink},
      {"pcie3", "PCIe Gen3 x16", kPcieGen3x16Gbps, LinkHop::kPcie},
      {"pcie4", "PCIe Gen4 x16", kPcieGen4x16Gbps, LinkHop::kPcie},
      {"pcie5", "PCIe Gen5 x16", kPcieGen5x16Gbps, LinkHop::kPcie},
      {"ib-hdr", "InfiniBand HDR", kInfinibandHdrGbps, LinkHop::kNetwork},
      {"ib-ndr", "InfiniBand NDR", kInfinibandNdrGbps, LinkHop::kNetwork},
      {"100gbe", "100 Gb Ethernet", kEthernet100GbeGbps, LinkHop::kNetwork},
      {"400gbe", "400 Gb Ethernet", kEthernet400GbeGbps, LinkHop::kNetwork},
  };
  return links;
}

const CommLink* FindCommLink(std::string_view name) {
  for (const CommLink& l : CommLinks())
    if (l.name == name) return &l;
  return nullptr;
}

RingLatency NcclRingLatency(LinkHop hop, bool simple) { return {kRingBaseUs[simple], kHopUs[int(hop)][simple]}; }

int RingSteps(CollectiveKind kind, int n) {
  if (n < 2) return 0;
  switch (kind) {
    case CollectiveKind::kAllReduce: return 2 * (n - 1);
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: return n - 1;
    default: return 0;
  }
}

double RingLatencyUs(CollectiveKind kind, int n, int nodes, LinkHop intra, bool simple) {
  const int steps = RingSteps(kind, n);
  const int inter = nodes > 1 ? std::min(steps, RingSteps(kind, nodes)) : 0;
  const RingLatency in = NcclRingLatency(intra, simple), net = NcclRingLatency(LinkHop::kNetwork, simple);
  return in.base_us + (steps - inter) * in.hop_us + inter * net.hop_us;
}

double ScaledCollectiveUs(CollectiveKind kind, double t0_us, int n0, double lat0_us, int n1, double lat1_us,
                          double peak_ratio) {
  const auto f0 = BusBandwidthFactor(kind, n0), f1 = BusBandwidthFactor(kind, n1);
  if (!f0 || !f1 || *f0 <= 0 || peak_ratio <= 0) return t0_us;
  const double bw0 = std::max(t0_us - lat0_us, 0.1 * t0_us);
  return lat1_us + bw0 * (*f1 / *f0) / peak_ratio;
}

void PredictCommScale(const StepModel& m, const FixSpec& fix, Prediction* p) {
  if (m.cpu_only) {
    p->why_not = "a CPU-only trace: its collectives (gloo) are host ranges the replay does not re-time";
    return;
  }
  // The collectives the model can scale: a ring kind with its group size recorded.
  std::map<int, int> by_group;  // recorded group size -> ops
  int64_t comm_ops = 0, p2p_ops = 0;
  for (const DeviceOp& op : m.device) {
    if (op.role != DeviceWorkRole::kCollective) continue;
    ++comm_ops;
    const CollectiveKind k = op.comm_kind;
    if (k == CollectiveKind::kPointToPoint) ++p2p_ops;
    else if (op.comm_ranks >= 2 && RingSteps(k, op.comm_ranks) > 0) ++by_group[op.comm_ranks];
  }
  if (comm_ops == 0) {
    p->why_not = "no communication kernels in the steps: there is nothing to scale";
    return;
  }
  if (by_group.empty()) {
    p->why_not = p2p_ops == comm_ops ? "the communication is point-to-point (send/recv between pipeline stages): its "
                                       "size does not change with the number of devices"
                                     : "the trace does not record the collectives' kind and group size (PyTorch's "
                                       "record_param_comms \"Group size\"): the ring model needs them";
    return;
  }
  const int n1 = fix.devices, gpus = m.gpus_on_host;
  const CommLink* named = fix.link.empty() ? nullptr : FindCommLink(fix.link);
  const bool spans_hosts = gpus >= 2 && n1 > gpus;
  if (spans_hosts && (!named || named->hop != LinkHop::kNetwork)) {
    p->why_not = fmt::format("{} devices do not fit this host's {} GPUs: the ring crosses the network, whose kind and "
                             "speed the trace does not record; name it (link=ib-hdr, ib-ndr, 100gbe or 400gbe)",
                             n1, gpus);
    return;
  }
  // Per recorded group size: its link, and the peak ratio of the scaled ring's.
  struct Scale {
    double peak_ratio = 1;  // the new link's peak over the recorded one's
    CollectiveLinkInfo recorded;
  };
  std::map<int, Scale> scale;
  const int nodes1 = spans_hosts ? (n1 + gpus - 1) / gpus : 1;
  for (const auto& [n0, ops] : by_group) {
    Scale s;
    s.recorded = GuessCollectiveLink(m.device_name, n0, gpus);
    const int nodes0 = gpus >= 2 && n0 > gpus ? (n0 + gpus - 1) / gpus : 1;
    if (named && !spans_hosts) {
      if (!s.recorded.peak_gbps) {
        p->why_not = fmt::format("the link the recorded {}-rank collectives ran over is not known ({}): leave link= "
                                 "out to scale over the same link",
                                 n0, s.recorded.basis);
        return;
      }
      s.peak_ratio = named->peak_gbps / *s.recorded.peak_gbps;
    } else if (named) {  // spans hosts: the network is the ring's slowest hop
      if (!s.recorded.peak_gbps && nodes0 == 1) {
        p->why_not = fmt::format("the link the recorded {}-rank collectives ran over is not known ({}), so the share "
                                 "of its peak they achieved cannot be carried onto the network",
                                 n0, s.recorded.basis);
        return;
      }
      s.peak_ratio = nodes0 > 1 ? 1.0 : named->peak_gbps / *s.recorded.peak_gbps;
    }
    scale[n0] = s;
  }
  // Per op: the scaled time's speed-up (t0 / t1); which = 0 low (LL latency, measured share of
  // the peak), 1 high (Simple, kCommScaleSlack slower), 2 the point (Simple, measured share).
  auto factors = [&](int which) {
    std::vector<double> f(m.device.size(), 1.0);
    for (size_t i = 0; i < m.device.size(); ++i) {
      const DeviceOp& op = m.device[i];
      if (op.role != DeviceWorkRole::kCollective || op.comm_ranks < 2) continue;
      const CollectiveKind k = op.comm_kind;
      if (RingSteps(k, op.comm_ranks) == 0) continue;
      const Scale& s = scale.at(op.comm_ranks);
      const bool simple = which != 0;
      const int nodes0 = gpus >= 2 && op.comm_ranks > gpus ? (op.comm_ranks + gpus - 1) / gpus : 1;
      const LinkHop intra = HopOf(s.recorded);
      const double lat0 = RingLatencyUs(k, op.comm_ranks, nodes0, intra, simple);
      const double lat1 = RingLatencyUs(k, n1, nodes1, named && !spans_hosts ? named->hop : intra, simple);
      const double ratio = s.peak_ratio / (which == 1 ? 1 + kCommScaleSlack : 1.0);
      const double t0 = double(op.dur_ns) / 1e3;
      const double t1 = ScaledCollectiveUs(k, t0, op.comm_ranks, lat0, n1, lat1, ratio);
      if (t0 > 0 && t1 > 0) f[i] = t0 / t1;
    }
    return f;
  };
  Edit e;
  std::vector<double> f = factors(2);
  e.op_factors = &f;
  SetPoint(Calibrated(m, e, *p), p);
  std::vector<double> lo = factors(0), hi = factors(1);
  e.op_factors = &lo;
  p->low_ms = Mean(Calibrated(m, e, *p).step_ms);
  e.op_factors = &hi;
  p->high_ms = Mean(Calibrated(m, e, *p).step_ms);
  if (p->low_ms > p->high_ms) std::swap(p->low_ms, p->high_ms);
  p->low_ms = std::min(p->low_ms, p->predicted_step_ms);
  p->high_ms = std::max(p->high_ms, p->predicted_step_ms);

  // What the prediction rests on.
  std::string groups;
  for (const auto& [n0, s] : scale)
    groups += fmt::format("{}{} ranks over {}", groups.empty() ? "" : "; ", n0, s.recorded.name.empty() ? "an unknown link" : s.recorded.name);
  p->assumptions.push_back(fmt::format("weak scaling to {} devices: each keeps its batch and its compute; only the "
                                       "collectives change, with the message sizes recorded (data parallel: gradients do "
                                       "not shrink with more devices)",
                                       n1));
  p->assumptions.push_back(fmt::format("recorded: {}; each kernel's time includes any wait for the other ranks, "
                                       "scaled as transfer",
                                       groups));
  p->assumptions.push_back(
      "alpha-beta ring: a collective's time is its ring latency (NCCL's tuning model: base 3.6-8.4 us plus per step 0.47-3.4 "
      "us over NVLink, 1.0-5.7 us over PCIe, 2.7-9.6 us over the network; 2(n-1) steps for all-reduce, n-1 for the "
      "others) plus its bandwidth part, which scales with nccl-tests' bus factor (2(n-1)/n all-reduce, (n-1)/n the "
      "others) for the new group size");
  if (named)
    p->assumptions.push_back(fmt::format("over {} ({:.1f} GB/s a direction per GPU): the share of the link's peak the "
                                         "recorded collectives achieved stays as measured{}",
                                         named->label, named->peak_gbps,
                                         spans_hosts ? fmt::format("; {} hosts of {} GPUs, the steps between hosts at "
                                                                   "the network's latency",
                                                                   nodes1, gpus)
                                                     : ""));
  else
    p->assumptions.push_back("over the same link as recorded, at the share of its peak the collectives achieved");
  if (p2p_ops > 0)
    p->assumptions.push_back(fmt::format("{} point-to-point call{} (send/recv) unchanged", p2p_ops, p2p_ops == 1 ? "" : "s"));
  const int64_t unsized = comm_ops - p2p_ops - [&] {
    int64_t n = 0;
    for (const auto& [g, c] : by_group) n += c;
    return n;
  }();
  if (unsized > 0)
    p->assumptions.push_back(fmt::format("{} collective{} without a recorded kind or group size unchanged", unsized,
                                         unsized == 1 ? "" : "s"));
  p->assumptions.push_back(fmt::format("range: LL latencies at the low end, Simple and a bandwidth {:.0f}% under the "
                                       "measured share at the high end; not yet checked against a measured run at the "
                                       "new scale (docs/whatif.md)",
                                       100 * kCommScaleSlack));
}

}  // namespace stepdoctor
