#include "stepdoctor/live/proc_parse.h"

#include <charconv>

namespace stepdoctor::live {
namespace {

// Splits `text` into lines without allocating.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// Cuts the next whitespace-separated field off `s`; empty at the end.
std::string_view NextField(std::string_view& s) {
  size_t i = s.find_first_not_of(" \t");
  if (i == std::string_view::npos) {
    s = {};
    return {};
  }
  s.remove_prefix(i);
  size_t j = s.find_first_of(" \t");
  std::string_view f = s.substr(0, j);
  s.remove_prefix(j == std::string_view::npos ? s.size() : j);
  return f;
}

template <typename T>
bool ToNum(std::string_view f, T* out) {
  auto r = std::from_chars(f.data(), f.data() + f.size(), *out);
  return r.ec == std::errc() && r.ptr == f.data() + f.size();
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

std::vector<CpuTimes> ParseProcStat(std::string_view text) {
  std::vector<CpuTimes> out;
  ForEachLine(text, [&](std::string_view line) {
    if (!StartsWith(line, "cpu")) return;
    std::string_view rest = line;
    std::string_view label = NextField(rest);
    CpuTimes c;
    if (label.size() > 3 && !ToNum(label.substr(3), &c.core)) return;
    uint64_t* fields[] = {&c.user, &c.nice, &c.system, &c.idle, &c.iowait, &c.irq, &c.softirq, &c.steal};
    for (uint64_t* f : fields) {
      std::string_view v = NextField(rest);
      if (v.empty()) break;  // older kernels have fewer columns: the rest stay 0
      if (!ToNum(v, f)) return;
    }
    out.push_back(c);
  });
  return out;
}

std::optional<PidStat> ParsePidStat(std::string_view text) {
  PidStat s;
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  if (!ToNum(text.substr(0, open > 0 ? open - 1 : 0), &s.pid)) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  // Fields after comm, numbered as in proc(5) from 3 (state).
  std::string_view f[50];
  int n = 0;
  while (n < 50) {
    std::string_view v = NextField(rest);
    if (v.empty()) break;
    f[n++] = v;
  }
  if (n < 22) return std::nullopt;
  auto at = [&](int field) { return f[field - 3]; };  // proc(5) field number -> token
  s.state = at(3).empty() ? '?' : at(3)[0];
  bool ok = ToNum(at(4), &s.ppid) && ToNum(at(10), &s.minflt) && ToNum(at(12), &s.majflt) &&
            ToNum(at(14), &s.utime) && ToNum(at(15), &s.stime) && ToNum(at(16), &s.cutime) &&
            ToNum(at(17), &s.cstime) && ToNum(at(20), &s.num_threads) && ToNum(at(22), &s.starttime) &&
            ToNum(at(24), &s.rss_pages);
  if (!ok) return std::nullopt;
  if (n >= 42 - 2) (void)ToNum(at(42), &s.blkio_ticks);  // field 42 is token 39: older kernels lack it
  return s;
}

std::optional<SchedStat> ParseSchedStat(std::string_view text) {
  SchedStat s;
  if (!ToNum(NextField(text), &s.run_ns) || !ToNum(NextField(text), &s.wait_ns)) return std::nullopt;
  return s;
}

std::optional<PidIo> ParsePidIo(std::string_view text) {
  PidIo io;
  int seen = 0;
  ForEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon), rest = line.substr(colon + 1);
    std::string_view v = NextField(rest);
    uint64_t* dst = key == "rchar" ? &io.rchar
                    : key == "wchar" ? &io.wchar
                    : key == "read_bytes" ? &io.read_bytes
                    : key == "write_bytes" ? &io.write_bytes
                                           : nullptr;
    if (dst && ToNum(v, dst)) ++seen;
  });
  if (seen == 0) return std::nullopt;
  return io;
}

std::vector<DiskStat> ParseDiskStats(std::string_view text) {
  std::vector<DiskStat> out;
  ForEachLine(text, [&](std::string_view line) {
    std::string_view rest = line;
    std::string_view f[14];
    for (auto& x : f) x = NextField(rest);
    if (f[13].empty()) return;
    // major minor name reads merged sectors ms writes merged sectors ms inflight io_ms ...
    DiskStat d;
    d.name = std::string(f[2]);
    if (!ToNum(f[5], &d.sectors_read) || !ToNum(f[9], &d.sectors_written) || !ToNum(f[12], &d.io_ms)) return;
    out.push_back(std::move(d));
  });
  return out;
}

bool IsReportedDisk(std::string_view name) {
  for (std::string_view p : {"loop", "ram", "zram", "dm-", "md", "sr", "fd"})
    if (StartsWith(name, p)) return false;
  // Partitions: sda1, vda2, nvme0n1p1, mmcblk0p1. Whole disks end in a letter, or are nvmeXnY.
  if (StartsWith(name, "nvme") || StartsWith(name, "mmcblk")) return name.find('p', 4) == std::string_view::npos;
  return !name.empty() && !(name.back() >= '0' && name.back() <= '9');
}

NetTotals ParseNetDev(std::string_view text) {
  NetTotals t;
  ForEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view iface = line.substr(0, colon);
    iface.remove_prefix(std::min(iface.find_first_not_of(' '), iface.size()));
    if (iface == "lo") return;
    std::string_view rest = line.substr(colon + 1);
    std::string_view f[9];
    for (auto& x : f) x = NextField(rest);
    uint64_t rx = 0, tx = 0;
    if (ToNum(f[0], &rx) && ToNum(f[8], &tx)) {
      t.rx_bytes += rx;
      t.tx_bytes += tx;
    }
  });
  return t;
}

std::optional<Psi> ParsePsi(std::string_view text) {
  Psi p;
  bool any = false;
  ForEachLine(text, [&](std::string_view line) {
    size_t at = line.find("total=");
    if (at == std::string_view::npos) return;
    std::string_view rest = line.substr(at + 6);
    uint64_t v;
    if (!ToNum(NextField(rest), &v)) return;
    if (StartsWith(line, "some")) p.some_total_us = v, any = true;
    if (StartsWith(line, "full")) p.full_total_us = v;
  });
  if (!any) return std::nullopt;
  return p;
}

MemInfo ParseMemInfo(std::string_view text) {
  MemInfo m;
  ForEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon), rest = line.substr(colon + 1);
    uint64_t kb;
    if (!ToNum(NextField(rest), &kb)) return;
    if (key == "MemTotal") m.total_bytes = kb * 1024;
    if (key == "MemAvailable") m.available_bytes = kb * 1024;
  });
  return m;
}

}  // namespace stepdoctor::live
