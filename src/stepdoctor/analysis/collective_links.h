// The link a collective most likely ran over, told from what the trace says (the GPU's name in
// Kineto's deviceProperties, the group's size against the GPUs its host has), and the link's
// documented peak. Peaks are per GPU and per direction: nccl-tests' bus bandwidth counts the
// bytes each rank sends, so it is held against one direction's rate, half the bidirectional
// totals NVIDIA's datasheets quote. docs/distributed.md has the table with its sources.
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/report/collectives.h"

namespace stepdoctor {

// Documented peaks, GB/s (1e9 bytes/s), one direction, per GPU (or per network port).
// NVLink: NVIDIA's per-GPU totals count both directions; each link moves 25 GB/s each way.
inline constexpr double kNvlink2V100Gbps = 300.0 / 2;  // V100 SXM2: 6 NVLink 2 links, 300 GB/s both ways (V100 datasheet)
inline constexpr double kNvlink3A100Gbps = 600.0 / 2;  // A100 SXM4: 12 NVLink 3 links, 600 GB/s both ways (A100 datasheet)
inline constexpr double kNvlink4H100Gbps = 900.0 / 2;  // H100 SXM5, H200 SXM: 18 NVLink 4 links, 900 GB/s both ways
inline constexpr double kNvlinkBridgeA100Gbps = 600.0 / 2;  // A100 PCIe with an NVLink bridge (2 GPUs): 600 GB/s both ways
inline constexpr double kNvlinkBridgeH100Gbps = 600.0 / 2;  // H100 PCIe with an NVLink bridge: 600 GB/s both ways
// PCIe x16: the lane rate (GT/s) x 16 lanes x 128b/130b encoding / 8 bits, each way (PCI-SIG).
inline constexpr double kPcieGen3x16Gbps = 8.0 * 16 * 128 / 130 / 8;   // 8 GT/s: 15.75 GB/s
inline constexpr double kPcieGen4x16Gbps = 16.0 * 16 * 128 / 130 / 8;  // 16 GT/s: 31.5 GB/s
inline constexpr double kPcieGen5x16Gbps = 32.0 * 16 * 128 / 130 / 8;  // 32 GT/s: 63.0 GB/s
// Networks, per port and direction: their data rates in Gb/s over 8 (InfiniBand Trade
// Association; IEEE 802.3). Quoted for the reader: which a job used, the trace does not say.
inline constexpr double kInfinibandHdrGbps = 200.0 / 8;  // HDR, 4 lanes of 50 Gb/s: 25 GB/s
inline constexpr double kInfinibandNdrGbps = 400.0 / 8;  // NDR, 4 lanes of 100 Gb/s: 50 GB/s
inline constexpr double kEthernet100GbeGbps = 100.0 / 8;  // 100GbE: 12.5 GB/s
inline constexpr double kEthernet400GbeGbps = 400.0 / 8;  // 400GbE: 50 GB/s

// The link of a `group_size`-rank collective run from a GPU named `device_name` (as CUDA names
// it: "NVIDIA A100-SXM4-80GB") on a host whose trace lists `gpus_on_host` GPUs.
//   - one rank: nothing crosses a link (kind "none");
//   - more ranks than the host's GPUs (with two or more listed): the group spans hosts, so the
//     slowest hop is the network, whose kind and speed the trace does not record (no peak);
//   - a group that fits the host's GPUs: taken to run within it (a trace that lists one GPU cannot
//     tell: unknown), over the GPU's link to its peers: NVLink for SXM modules, PCIe for cards;
//   - a device not in the table, or one whose name does not say its form factor: unknown link,
//     naming the candidates where the GPU model is known.
CollectiveLinkInfo GuessCollectiveLink(std::string_view device_name, int group_size, int gpus_on_host);

}  // namespace stepdoctor
