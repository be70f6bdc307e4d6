#include "stepdoctor/analysis/collective_links.h"

#include <fmt/format.h>

#include <string>

namespace stepdoctor {
namespace {

// A GPU by the part of its CUDA name that says its model and form factor. First match wins, so a
// model's specific names come before its bare one. `peak` 0 with kind "unknown": the name does
// not say which of the model's two links it has (`or_link`, `or_peak`: the other one).
struct DeviceLink {
  const char* name_part;
  const char* kind;
  const char* link;
  double peak;
  double bridge;        // PCIe cards an NVLink bridge can pair: the bridge's peak, else 0
  const char* or_link;  // kind "unknown": the model's other link
  double or_peak;
};

constexpr DeviceLink kDeviceLinks[] = {
    {"V100-SXM2", "nvlink", "NVLink 2 (V100 SXM2)", kNvlink2V100Gbps, 0, "", 0},
    {"V100-PCIE", "pcie", "PCIe Gen3 x16", kPcieGen3x16Gbps, 0, "", 0},
    {"V100S-PCIE", "pcie", "PCIe Gen3 x16", kPcieGen3x16Gbps, 0, "", 0},
    {"A100-SXM4", "nvlink", "NVLink 3 (A100 SXM4)", kNvlink3A100Gbps, 0, "", 0},
    {"A100-PCIE", "pcie", "PCIe Gen4 x16", kPcieGen4x16Gbps, kNvlinkBridgeA100Gbps, "", 0},
    {"A100 80GB PCIe", "pcie", "PCIe Gen4 x16", kPcieGen4x16Gbps, kNvlinkBridgeA100Gbps, "", 0},
    // The H100 datasheet's only 80 GB HBM3 part is the SXM5 module (the PCIe card has HBM2e).
    {"H100 80GB HBM3", "nvlink", "NVLink 4 (H100 SXM5)", kNvlink4H100Gbps, 0, "", 0},
    {"H100 SXM", "nvlink", "NVLink 4 (H100 SXM5)", kNvlink4H100Gbps, 0, "", 0},
    {"H100 PCIe", "pcie", "PCIe Gen5 x16", kPcieGen5x16Gbps, kNvlinkBridgeH100Gbps, "", 0},
    {"H100 NVL", "unknown", "an NVLink bridge", kNvlinkBridgeH100Gbps, 0, "PCIe Gen5 x16", kPcieGen5x16Gbps},
    {"H200 NVL", "unknown", "an NVLink bridge", 0, 0, "PCIe Gen5 x16", kPcieGen5x16Gbps},
    {"H200", "nvlink", "NVLink 4 (H200 SXM)", kNvlink4H100Gbps, 0, "", 0},
    {"V100", "unknown", "NVLink 2 (SXM2)", kNvlink2V100Gbps, 0, "PCIe Gen3 x16", kPcieGen3x16Gbps},
    {"A100", "unknown", "NVLink 3 (SXM4)", kNvlink3A100Gbps, 0, "PCIe Gen4 x16", kPcieGen4x16Gbps},
    {"H100", "unknown", "NVLink 4 (SXM5)", kNvlink4H100Gbps, 0, "PCIe Gen5 x16", kPcieGen5x16Gbps},
};

const DeviceLink* FindDevice(std::string_view device_name) {
  for (const DeviceLink& d : kDeviceLinks)
    if (device_name.find(d.name_part) != std::string_view::npos) return &d;
  return nullptr;
}

}  // namespace

CollectiveLinkInfo GuessCollectiveLink(std::string_view device_name, int group_size, int gpus_on_host) {
  CollectiveLinkInfo l;
  const std::string device = device_name.empty() ? std::string("an unnamed device") : fmt::format("'{}'", device_name);
  if (group_size < 1) {
    l.name = "unknown link";
    l.basis = "the trace does not record the group's size";
    return l;
  }
  if (group_size == 1) {
    l.kind = "none";
    l.name = "none (one rank)";
    l.basis = "a group of one rank: nothing crosses a link";
    return l;
  }
  if (gpus_on_host < 2) {
    l.name = "unknown link";
    l.basis = fmt::format("the trace lists {} GPU{}, so whether the {} ranks share a host cannot be told", gpus_on_host,
                          gpus_on_host == 1 ? "" : "s", group_size);
    return l;
  }
  if (group_size > gpus_on_host) {
    l.kind = "network";
    l.name = "network between hosts";
    l.basis = fmt::format(
        "the {}-rank group is larger than the {} GPUs this host has, so it spans hosts and its slowest hop is the "
        "network; which one, and its speed, the trace does not record (per port and direction: InfiniBand HDR {:.0f} "
        "GB/s, NDR {:.0f} GB/s; 100GbE {:.1f} GB/s, 400GbE {:.0f} GB/s)",
        group_size, gpus_on_host, kInfinibandHdrGbps, kInfinibandNdrGbps, kEthernet100GbeGbps, kEthernet400GbeGbps);
    return l;
  }
  const std::string fits =
      fmt::format("the {}-rank group fits the {} GPUs this host has, so it likely runs within it", group_size, gpus_on_host);
  const DeviceLink* d = FindDevice(device_name);
  if (!d) {
    l.name = "unknown link";
    l.basis = fmt::format("{}; {} is not in the link table", fits, device);
    return l;
  }
  if (std::string_view(d->kind) == "unknown") {
    auto each_way = [](double gbps) { return gbps > 0 ? fmt::format(" ({:.4g} GB/s each way)", gbps) : std::string(); };
    l.name = "unknown link";
    l.basis = fmt::format("{}; the name {} does not say which link it has: {}{} or {}{}", fits, device, d->link,
                          each_way(d->peak), d->or_link, each_way(d->or_peak));
    return l;
  }
  l.kind = d->kind;
  l.name = d->link;
  l.peak_gbps = d->peak;
  l.basis = fmt::format("{}; {} connects to its peers over {}", fits, device, d->link);
  if (d->bridge > 0)
    l.basis += fmt::format(" unless an NVLink bridge pairs the cards ({:.0f} GB/s each way), which the trace does not show",
                           d->bridge);
  return l;
}

}  // namespace stepdoctor
