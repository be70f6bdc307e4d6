// What `stepdoctor io-bench` measured of the storage under a path, and what it concludes:
// a plain struct the text and JSON renderers print (docs/input.md lists the JSON keys).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepdoctor {

// IoBenchPhase::kind: large files read in 8 MiB pieces, or small files read whole.
inline constexpr const char* kPhaseSequential = "sequential";
inline constexpr const char* kPhaseSmallFiles = "small_files";

struct IoBenchPhase {
  std::string kind;       // kPhaseSequential or kPhaseSmallFiles
  int readers = 1;        // threads reading at once
  uint64_t files = 0;     // files (small) or 8 MiB pieces (sequential) read
  uint64_t bytes = 0;
  double seconds = 0;
  double mb_per_s = 0;    // 10^6 bytes per second
  double files_per_s = 0; // small_files only
};

struct IoBenchNeed {
  double samples_per_s = 0;
  double bytes_per_sample = 0;  // given, or the folder's mean file size
  double mb_per_s = 0;          // what the job must read
  std::string source;           // where samples_per_s came from: "--samples-per-sec", or a trace's steps
};

struct IoBenchReport {
  std::string path;
  bool cold = false;            // page cache dropped before each read (posix_fadvise DONTNEED)
  std::string cache_note;       // how the cache was handled, one line
  uint64_t files = 0, bytes = 0;
  uint64_t small_files = 0, large_files = 0;
  uint64_t small_file_threshold_bytes = 0;
  double mean_file_bytes = 0;       // over all files
  double mean_small_file_bytes = 0; // over the small ones
  std::vector<IoBenchPhase> phases;
  std::optional<double> sequential_mb_per_s;   // best over reader counts; none without large files
  std::optional<double> small_files_per_s;     // best over reader counts; none without small files
  std::optional<double> small_mb_per_s;
  // sequential MB/s over small-file MB/s: how much faster the same storage delivers large files.
  std::optional<double> small_file_penalty;
  std::optional<IoBenchNeed> need;
  std::optional<bool> can_feed;     // with `need`: the storage delivers it with readers_needed readers
  int readers_needed = 0;           // fewest readers measured that deliver `need`; 0: none did
  std::optional<bool> packing_helps;// the data is small files and the penalty is large enough
  // The read path most of the bytes take: kPhaseSmallFiles or kPhaseSequential; what the job's
  // rate is compared with (set by ConcludeIoBench).
  std::string read_path;
  std::vector<std::string> findings;  // the conclusions, one sentence each
};

}  // namespace stepdoctor
