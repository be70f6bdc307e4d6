// `nvidia-smi dmon` output -> Trace::counters, the same per-GPU series the CSV importer writes.
//
//   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   rxpci  txpci
//   # Idx      W      C      C      %      %      %      %    MHz    MHz     MB    MB/s   MB/s
//       0     21     50      -      0      0      0      0    405    210     38       0      1
//
// The columns vary with `-s` (p, u, c, v, m, e, t) and `-o D`/`-o T`/`-o DT`, which put
// `#Date Time` ("20240630 00:23:37", local) in front; the header repeats every so often and a
// restarted dmon may print other columns. Read: sm -> util_pct, mem -> mem_util_pct, fb (MB,
// which dmon means as MiB) -> mem_used_bytes, pwr -> power_w, gtemp (or temp on older drivers)
// -> temp_celsius, pclk -> sm_clock_mhz, rxpci/txpci (MB/s) -> pcie_rx/tx_bytes_per_s; other
// columns (mtemp, enc, dec, mclk, pviol, tviol, bar1, ecc, ...) are ignored. `-` is dmon's
// "unknown": skipped and counted in a note; a value that is not a number is counted
// (kBadCounterValue); a row whose field count differs from the header is counted
// (kMalformedEvent). Without time columns rows are one poll per GPU, polls 1 s apart (dmon's
// default -d 1, or the -d of a dmon command line the log shows), noted as assumed_timing.
// Also reads `--format csv`, whose fields are separated by commas.
#pragma once

#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// True for dmon's column-name line ("# gpu   pwr  gtemp ...", "#Date  Time  gpu  pwr ...").
bool IsDmonHeader(std::string_view line);

Status ImportNvidiaSmiDmon(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
