// `stepdoctor io-bench PATH`: measures what the storage under PATH delivers (sequential MB/s on
// large files, files/s and MB/s on a sample of the folder's own small files) with 1, 2, 4, ...
// readers, cold where the page cache can be dropped, and says whether it can feed a job.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "stepdoctor/core/result.h"
#include "stepdoctor/report/io_bench_report.h"

namespace stepdoctor {

// A file this large is read for milliseconds, so its open cost (tens of µs) is noise:
// such files measure sequential throughput; smaller ones measure the small-file path.
inline constexpr uint64_t kLargeFileBytes = 4ull << 20;
// Packing pays off when large files come at least twice as fast as the small ones.
inline constexpr double kPackingHelpsPenalty = 2.0;

struct IoBenchOptions {
  std::string path;
  int max_threads = 4;        // readers: 1, 2, 4, ... up to this
  double duration_s = 10;     // the whole measurement, split over the phases
  bool cold = true;           // drop each file from the page cache before reading it
  double samples_per_s = 0;   // what the job needs (0: not compared)
  double need_mb_per_s = 0;   // or what it needs in bytes (live samples of its reads); used without samples_per_s
  std::string need_source = "--samples-per-sec";  // where the need came from, one line
  double bytes_per_sample = 0;// 0: the folder's mean file size
  uint64_t seed = 1;          // which small files are sampled
  // Called now and then with the phase name, elapsed and total milliseconds.
  std::function<void(const std::string&, uint64_t, uint64_t)> progress;
};

// Errors: PATH missing, or holding no readable regular file.
Result<IoBenchReport> RunIoBench(const IoBenchOptions& o);

// The conclusions from measured figures (separate so tests can feed figures directly).
void ConcludeIoBench(IoBenchReport* r);

}  // namespace stepdoctor
