// Parsers for the /proc and /sys text the live samplers read. Pure functions over the bytes of
// one file, so tests feed them inline text; the samplers (proc_sampler.h) do the reading.
// Counters are kept cumulative as the kernel reports them; rates are computed by the sampler.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepdoctor::live {

// One "cpuN" line of /proc/stat, in clock ticks (USER_HZ).
struct CpuTimes {
  int core = -1;  // -1 for the aggregate "cpu" line
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  uint64_t busy() const { return user + nice + system + irq + softirq; }  // not idle, iowait, steal
};

// All cpu lines of /proc/stat: the aggregate first, then the cores in file order.
std::vector<CpuTimes> ParseProcStat(std::string_view text);

// The fields of /proc/PID/stat a sampler needs. REQUIRED: the comm field may hold spaces and
// parentheses; the parser reads it up to the last ')'.
struct PidStat {
  int64_t pid = 0, ppid = 0;
  char state = '?';                      // R, S, D (uninterruptible: usually waiting on disk), Z ...
  uint64_t minflt = 0, majflt = 0;
  uint64_t utime = 0, stime = 0;         // this process's own CPU time, ticks
  uint64_t cutime = 0, cstime = 0;       // CPU time of children it has reaped, ticks
  int64_t num_threads = 0;
  uint64_t starttime = 0;                // ticks after boot: tells a reused pid from the old one
  int64_t rss_pages = 0;
  uint64_t blkio_ticks = 0;              // delayacct_blkio_ticks: 0 unless delay accounting is on
};
std::optional<PidStat> ParsePidStat(std::string_view text);

// /proc/PID/task/TID/schedstat: nanoseconds on a CPU and waiting on a run queue (runnable but
// not running: the CPU it wanted went to someone else).
struct SchedStat {
  uint64_t run_ns = 0, wait_ns = 0;
};
std::optional<SchedStat> ParseSchedStat(std::string_view text);

// /proc/PID/io: bytes the process (and its reaped children) made the storage layer read/write.
struct PidIo {
  uint64_t rchar = 0, wchar = 0;            // bytes through read()/write(), cache hits included
  uint64_t read_bytes = 0, write_bytes = 0; // bytes that reached the block layer
};
std::optional<PidIo> ParsePidIo(std::string_view text);

// One line of /proc/diskstats.
struct DiskStat {
  std::string name;
  uint64_t sectors_read = 0, sectors_written = 0;  // 512-byte sectors, whatever the device's block size
  uint64_t io_ms = 0;                              // milliseconds with I/O in flight (-> utilisation)
};
std::vector<DiskStat> ParseDiskStats(std::string_view text);
// Whole disks worth reporting: not loop, ram, zram or device-mapper children of what we count.
bool IsReportedDisk(std::string_view name);

// /proc/net/dev summed over interfaces other than lo.
struct NetTotals {
  uint64_t rx_bytes = 0, tx_bytes = 0;
};
NetTotals ParseNetDev(std::string_view text);

// /proc/pressure/{cpu,io,memory}: cumulative stall microseconds.
struct Psi {
  uint64_t some_total_us = 0;
  uint64_t full_total_us = 0;  // absent for cpu on older kernels: 0
};
std::optional<Psi> ParsePsi(std::string_view text);

// /proc/meminfo's MemTotal and MemAvailable, bytes.
struct MemInfo {
  uint64_t total_bytes = 0, available_bytes = 0;
};
MemInfo ParseMemInfo(std::string_view text);

}  // namespace stepdoctor::live
