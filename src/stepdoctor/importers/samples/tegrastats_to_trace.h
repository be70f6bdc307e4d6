// NVIDIA Jetson's `tegrastats` log -> Trace::counters: one line per interval, e.g.
//
//   07-21-2025 16:33:42 RAM 17953/62841MB (lfb 9x4MB) SWAP 0/31420MB (cached 0MB)
//   CPU [7%@1728,31%@1036,off,...] EMC_FREQ 12%@204 GR3D_FREQ 39%@[305,0] ... gpu@40.093C ...
//   VDD_GPU_SOC 2798mW/2798mW VDD_CPU_CV 799mW/799mW
//
// (one line in the log). Read: GR3D_FREQ (older releases: GR3D) -> gpu0_util_pct, the GPU's
// busy share like nvidia-smi's utilization.gpu; the GPU rail's power (VDD_GPU_SOC, VDD_GPU,
// POM_5V_GPU, GPU: the first, current figure of "now/average") -> gpu0_power_w; gpu@C ->
// gpu0_temp_celsius; CPU [...] -> cpu_core<N>_pct per online core and cpu_pct_total (their mean);
// RAM used/total -> mem_total_bytes and mem_available_bytes (the GPU shares this memory with the
// CPU: no GPU memory figure). The leading "MM-DD-YYYY HH:MM:SS" stamp (tegrastats --timestamp,
// and newer releases by default) times each line; without it lines are one interval apart: the
// --interval of a tegrastats command line the log shows, else 1 s (tegrastats' default), noted
// as assumed_timing. Lines that are not tegrastats' are counted and skipped.
#pragma once

#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// A tegrastats line: RAM used/total and the GPU's load (GR3D_FREQ or GR3D).
bool IsTegrastatsLine(std::string_view line);

Status ImportTegrastats(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
