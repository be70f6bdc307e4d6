#include "stepdoctor/live/proc_sampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "stepdoctor/model/series_names.h"

namespace stepdoctor::live {
namespace {

double Rate(uint64_t now, uint64_t before, double seconds) {
  return now >= before && seconds > 0 ? double(now - before) / seconds : 0.0;
}

}  // namespace

bool ReadProcFile(const char* path, std::string* buf) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  buf->resize(std::max<size_t>(buf->capacity(), 4096));
  size_t n = 0;
  for (;;) {
    if (n == buf->size()) buf->resize(buf->size() * 2);
    ssize_t r = ::read(fd, buf->data() + n, buf->size() - n);
    if (r < 0) {
      ::close(fd);
      return false;
    }
    if (r == 0) break;
    n += size_t(r);
  }
  ::close(fd);
  buf->resize(n);
  return true;
}

SystemSampler::SystemSampler(std::string proc_root) : root_(std::move(proc_root)) {}

void SystemSampler::Sample(int64_t mono_ns, live::Sample* out) {
  double dt = primed_ ? double(mono_ns - prev_ns_) / 1e9 : 0;

  if (ReadProcFile((root_ + "/stat").c_str(), &buf_)) {
    std::vector<CpuTimes> cpu = ParseProcStat(buf_);
    cores_ = cpu.empty() ? 0 : int(cpu.size()) - 1;
    if (primed_ && cpu.size() == prev_cpu_.size()) {
      for (size_t i = 0; i < cpu.size(); ++i) {
        const CpuTimes &a = cpu[i], &b = prev_cpu_[i];
        double total = double(a.total() - b.total());
        if (total <= 0) continue;
        auto pct = [&](uint64_t x, uint64_t y) { return x >= y ? 100.0 * double(x - y) / total : 0.0; };
        if (a.core < 0) {
          out->Add(series::kCpuPctTotal, pct(a.busy(), b.busy()));
          out->Add(series::kCpuUserPct, pct(a.user + a.nice, b.user + b.nice));
          out->Add(series::kCpuSystemPct, pct(a.system + a.irq + a.softirq, b.system + b.irq + b.softirq));
          out->Add(series::kIowaitPct, pct(a.iowait, b.iowait));
          out->Add(series::kStealPct, pct(a.steal, b.steal));
        } else {
          out->Add(series::CpuCoreSeriesName(a.core), pct(a.busy(), b.busy()));
        }
      }
    }
    prev_cpu_ = std::move(cpu);
  }

  if (ReadProcFile((root_ + "/diskstats").c_str(), &buf_)) {
    double rd = 0, wr = 0, util_max = 0;
    bool any = false;
    for (DiskStat& d : ParseDiskStats(buf_)) {
      if (!IsReportedDisk(d.name)) continue;
      auto it = prev_disk_.find(d.name);
      if (primed_ && it != prev_disk_.end()) {
        double r = Rate(d.sectors_read, it->second.sectors_read, dt) * 512;
        double w = Rate(d.sectors_written, it->second.sectors_written, dt) * 512;
        double u = std::min(100.0, Rate(d.io_ms, it->second.io_ms, dt) / 10.0);  // ms per s -> %
        out->Add(series::DiskSeriesName(d.name, series::DiskMetric::kReadBytesPerS), r);
        out->Add(series::DiskSeriesName(d.name, series::DiskMetric::kWriteBytesPerS), w);
        out->Add(series::DiskSeriesName(d.name, series::DiskMetric::kUtilPct), u);
        rd += r, wr += w, util_max = std::max(util_max, u), any = true;
      }
      prev_disk_[d.name] = std::move(d);
    }
    if (any) {
      out->Add(series::kDiskReadBytesPerS, rd);
      out->Add(series::kDiskWriteBytesPerS, wr);
      out->Add(series::kDiskUtilPct, util_max);
    }
  }

  if (ReadProcFile((root_ + "/net/dev").c_str(), &buf_)) {
    NetTotals n = ParseNetDev(buf_);
    if (primed_) {
      out->Add(series::kNetRxBytesPerS, Rate(n.rx_bytes, prev_net_.rx_bytes, dt));
      out->Add(series::kNetTxBytesPerS, Rate(n.tx_bytes, prev_net_.tx_bytes, dt));
    }
    prev_net_ = n;
  }

  if (ReadProcFile((root_ + "/meminfo").c_str(), &buf_)) {
    MemInfo m = ParseMemInfo(buf_);
    if (m.total_bytes) {
      out->Add(series::kMemTotalBytes, double(m.total_bytes));
      out->Add(series::kMemAvailableBytes, double(m.available_bytes));
    }
  }

  for (const char* what : {"cpu", "io", "memory"}) {
    if (!ReadProcFile((root_ + "/pressure/" + what).c_str(), &buf_)) continue;  // no PSI: say nothing
    auto p = ParsePsi(buf_);
    if (!p) continue;
    auto it = prev_psi_.find(what);
    if (primed_ && it != prev_psi_.end()) {
      // Stall microseconds per second of wall time, as a percentage.
      out->Add(series::PsiSeriesName(what, false), std::min(100.0, Rate(p->some_total_us, it->second.some_total_us, dt) / 1e4));
      if (std::string_view(what) != "cpu")
        out->Add(series::PsiSeriesName(what, true), std::min(100.0, Rate(p->full_total_us, it->second.full_total_us, dt) / 1e4));
    }
    prev_psi_[what] = *p;
  }

  prev_ns_ = mono_ns;
  primed_ = true;
}

ProcessTreeSampler::ProcessTreeSampler(int64_t root_pid, std::string proc_root)
    : root_(root_pid), root_dir_(std::move(proc_root)) {
  ticks_per_s_ = std::max(1L, sysconf(_SC_CLK_TCK));
  page_bytes_ = std::max(1L, sysconf(_SC_PAGESIZE));
}

void ProcessTreeSampler::Sample(int64_t mono_ns, live::Sample* out) {
  // One pass over /proc: every process's parent, then the tree under root_. Scanning is the
  // portable way (the children files need CONFIG_PROC_CHILDREN and a read per thread).
  std::unordered_map<int64_t, PidStat> stats;
  std::unordered_multimap<int64_t, int64_t> children;
  DIR* dir = ::opendir(root_dir_.c_str());
  if (dir) {
    std::string path;
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      path = root_dir_ + "/" + e->d_name + "/stat";
      if (!ReadProcFile(path.c_str(), &buf_)) continue;  // exited meanwhile
      auto st = ParsePidStat(buf_);
      if (!st) continue;
      children.emplace(st->ppid, st->pid);
      stats.emplace(st->pid, *st);
    }
    ::closedir(dir);
  }
  pids_.clear();
  if (stats.count(root_)) {
    std::vector<int64_t> todo{root_};
    while (!todo.empty()) {
      int64_t p = todo.back();
      todo.pop_back();
      pids_.push_back(p);
      auto [b, e] = children.equal_range(p);
      for (auto it = b; it != e; ++it) todo.push_back(it->second);
    }
  }

  // Cumulative totals over the live tree. A child's CPU time, faults and I/O move into its
  // parent's counters when the parent reaps it, so the sum stays continuous as workers come
  // and go; a drop (a process left the tree unreaped) is clamped to zero for that interval.
  Totals t;
  int64_t threads = 0, rss_pages = 0, blocked = 0;
  for (int64_t p : pids_) {
    const PidStat& s = stats[p];
    t.cpu_ticks += s.utime + s.stime + s.cutime + s.cstime;
    t.minflt += s.minflt;
    t.majflt += s.majflt;
    threads += s.num_threads;
    rss_pages += s.rss_pages;
    if (s.state == 'D') ++blocked;
    std::string path = root_dir_ + "/" + std::to_string(p) + "/io";
    if (ReadProcFile(path.c_str(), &buf_))
      if (auto io = ParsePidIo(buf_)) {
        t.read_bytes += io->read_bytes;
        t.write_bytes += io->write_bytes;
        t.rchar += io->rchar;
        t.wchar += io->wchar;
      }
  }
  // Run-queue wait per thread (schedstat): CPU the job wanted but did not get. Threads come and
  // go, so deltas are per thread id; a new thread counts from zero.
  std::unordered_map<int64_t, SchedStat> sched;
  uint64_t wait_delta_ns = 0;
  bool have_sched = false;
  for (int64_t p : pids_) {
    std::string task_dir = root_dir_ + "/" + std::to_string(p) + "/task";
    DIR* td = ::opendir(task_dir.c_str());
    if (!td) continue;
    while (dirent* e = ::readdir(td)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      std::string path = task_dir + "/" + e->d_name + "/schedstat";
      if (!ReadProcFile(path.c_str(), &buf_)) continue;
      auto st = ParseSchedStat(buf_);
      if (!st) continue;
      have_sched = true;
      int64_t tid = std::strtoll(e->d_name, nullptr, 10);
      auto it = prev_sched_.find(tid);
      uint64_t before = it == prev_sched_.end() ? 0 : it->second.wait_ns;
      if (st->wait_ns >= before) wait_delta_ns += st->wait_ns - before;
      sched.emplace(tid, *st);
    }
    ::closedir(td);
  }
  prev_sched_ = std::move(sched);

  if (!pids_.empty()) {
    out->Add(series::kProcCount, double(pids_.size()));
    out->Add(series::kProcThreads, double(threads));
    out->Add(series::kProcRssBytes, double(rss_pages) * double(page_bytes_));
    out->Add(series::kProcBlockedIo, double(blocked));
    if (primed_) {
      double dt = double(mono_ns - prev_ns_) / 1e9;
      out->Add(series::kProcCpuPct, 100.0 * Rate(t.cpu_ticks, prev_.cpu_ticks, dt) / double(ticks_per_s_));
      if (have_sched) out->Add(series::kProcCpuWaitPct, 100.0 * double(wait_delta_ns) / 1e9 / dt);
      out->Add(series::kProcMinfltPerS, Rate(t.minflt, prev_.minflt, dt));
      out->Add(series::kProcMajfltPerS, Rate(t.majflt, prev_.majflt, dt));
      out->Add(series::kProcReadBytesPerS, Rate(t.read_bytes, prev_.read_bytes, dt));
      out->Add(series::kProcWriteBytesPerS, Rate(t.write_bytes, prev_.write_bytes, dt));
      out->Add(series::kProcRcharBytesPerS, Rate(t.rchar, prev_.rchar, dt));
      out->Add(series::kProcWcharBytesPerS, Rate(t.wchar, prev_.wchar, dt));
    }
    prev_ = t;
    prev_ns_ = mono_ns;
    primed_ = true;
  }
}

}  // namespace stepdoctor::live
