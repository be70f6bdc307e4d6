// The lines of nvidia-smi's default table (the box `nvidia-smi` prints with no options), cut
// into their cells as text. Read by the table importer for every snapshot of a repeated log,
// and by the CSV importer for the table a job script prints above its `--query-gpu` rows.
//
// A GPU takes two lines (a third, MIG M., is ignored):
//   |   0  NVIDIA A100-SXM4-80GB          On  |   00000000:CA:00.0 Off |                    0 |
//   | N/A   26C    P0             68W /  500W |   23055MiB /  81920MiB |      0%      Default |
// and each process one line in the Processes box:
//   |    0   N/A  N/A   1540605      C   python                                      23044MiB |
// Older drivers (418-535) print narrower columns and truncated names (`GeForce RTX 208...`);
// cells are found by the '|' between them and values by their place around the '/', so column
// widths do not matter. A value nvidia-smi does not know reads "N/A" and is kept as such.
#pragma once

#include <string_view>

namespace stepdoctor::smitable {

// True for the banner line that opens every snapshot ("| NVIDIA-SMI 555.42.02  Driver Version: ...").
bool IsBanner(std::string_view line);
// True for the title of the Processes box; the GPU lines of a snapshot are all above it.
bool IsProcessesTitle(std::string_view line);

// The first line of a GPU: its index and name (the persistence mode after it dropped).
// The fan/temperature line below starts "| N/A" or "| 30%", never a number followed by a name.
// REQUIRED: not called inside the Processes box, whose rows also start with a number and "N/A".
struct GpuHead {
  int index = 0;
  std::string_view name;
};
bool ParseGpuHead(std::string_view line, GpuHead* out);

// The second line of a GPU, each value as printed ("26C", "68W", "23055MiB", "0%", "N/A"),
// empty where the line does not show it. False when the line is not one (too few cells, no
// "used / total" memory cell).
struct GpuFigures {
  std::string_view fan, temp, perf, power_draw, power_cap, mem_used, mem_total, util;
};
bool ParseGpuFigures(std::string_view line, GpuFigures* out);

// A row of the Processes box: the GPU index and the memory the process holds ("23044MiB", or
// "N/A" where the driver does not say, as on Windows). False for its titles and for "No running
// processes found".
struct ProcessRow {
  int gpu = 0;
  std::string_view memory;
};
bool ParseProcessRow(std::string_view line, ProcessRow* out);

}  // namespace stepdoctor::smitable
