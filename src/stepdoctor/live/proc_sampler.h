// Samplers over /proc: the machine (CPU per core, disks, network, memory, pressure) and one
// process tree (a root pid and every descendant, found by scanning /proc/*/stat for parents,
// so forked DataLoader workers and `sh -c` children are counted). Each Sample() call reads the
// kernel's cumulative counters and appends rates over the interval since the previous call;
// the first call only primes the counters.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <string>
#include <vector>

#include "stepdoctor/live/proc_parse.h"
#include "stepdoctor/live/sample.h"

namespace stepdoctor::live {

// Reads a small /proc file into `buf` (reused between calls); false when it cannot be read.
bool ReadProcFile(const char* path, std::string* buf);

class SystemSampler {
 public:
  // `proc_root` is "/proc" except in tests.
  explicit SystemSampler(std::string proc_root = "/proc");
  void Sample(int64_t mono_ns, live::Sample* out);
  int cores() const { return cores_; }

 private:
  std::string root_, buf_;
  int64_t prev_ns_ = 0;
  std::vector<CpuTimes> prev_cpu_;
  std::map<std::string, DiskStat> prev_disk_;
  NetTotals prev_net_;
  std::map<std::string, Psi> prev_psi_;
  int cores_ = 0;
  bool primed_ = false;
};

class ProcessTreeSampler {
 public:
  explicit ProcessTreeSampler(int64_t root_pid, std::string proc_root = "/proc");
  void Sample(int64_t mono_ns, live::Sample* out);
  // The pids of the tree at the last sample (for per-process GPU memory).
  const std::vector<int64_t>& pids() const { return pids_; }
  // False once the root and all its descendants are gone.
  bool alive() const { return !pids_.empty(); }

 private:
  struct Totals {
    uint64_t cpu_ticks = 0, minflt = 0, majflt = 0;
    uint64_t read_bytes = 0, write_bytes = 0, rchar = 0, wchar = 0;
  };
  int64_t root_;
  std::string root_dir_, buf_;
  std::vector<int64_t> pids_;
  std::unordered_map<int64_t, SchedStat> prev_sched_;  // per thread id
  Totals prev_{};
  int64_t prev_ns_ = 0;
  bool primed_ = false;
  long ticks_per_s_ = 100;
  long page_bytes_ = 4096;
};

}  // namespace stepdoctor::live
