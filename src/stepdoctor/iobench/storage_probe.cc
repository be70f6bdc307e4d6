#include "stepdoctor/iobench/storage_probe.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kPieceBytes = 8ull << 20;  // sequential reads go in 8 MiB pieces, one read(2) each
constexpr size_t kMaxSampledFiles = 200000;   // small files listed per phase at most (memory bound)
constexpr size_t kMinSmallFiles = 32;         // fewer small files (a manifest beside shards) are not timed

struct Item {
  const std::string* path;
  uint64_t offset = 0, len = 0;  // len 0: the whole file
};

// Drops a file range from the page cache; false when the kernel refused.
bool DropCache(int fd, uint64_t offset, uint64_t len) {
  return ::posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(len), POSIX_FADV_DONTNEED) == 0;
}

// Whether dropping works here: reads `path`, drops it, and asks mincore how much stayed resident
// (tmpfs and some network file systems keep it).
bool CacheCanBeDropped(const std::string& path, uint64_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || size == 0) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  size_t len = static_cast<size_t>(std::min<uint64_t>(size, 1 << 20));
  std::vector<char> buf(len);
  bool ok = ::pread(fd, buf.data(), len, 0) > 0 && DropCache(fd, 0, 0);
  void* map = ok ? ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (map != MAP_FAILED) {
    long page = ::sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> resident((len + page - 1) / page);
    ok = ::mincore(map, len, resident.data()) == 0 &&
         std::none_of(resident.begin(), resident.end(), [](unsigned char c) { return c & 1; });
    ::munmap(map, len);
  } else {
    ok = false;
  }
  ::close(fd);
  return ok;
}

// Reads one item (whole small file, or a piece of a large one); returns bytes read.
uint64_t ReadItem(const Item& it, bool cold, std::vector<char>* buf) {
  int fd = ::open(it.path->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  if (cold) DropCache(fd, it.offset, it.len);
  uint64_t got = 0, off = it.offset;
  for (;;) {
    size_t want = it.len == 0 ? buf->size() : static_cast<size_t>(std::min<uint64_t>(buf->size(), it.len - got));
    if (want == 0) break;
    ssize_t n = ::pread(fd, buf->data(), want, static_cast<off_t>(off));
    if (n <= 0) break;
    got += uint64_t(n);
    off += uint64_t(n);
  }
  ::close(fd);
  return got;
}

// `readers` threads take items in order until they run out or `budget_s` passes.
IoBenchPhase RunPhase(const std::string& kind, const std::vector<Item>& items, int readers, double budget_s,
                      bool cold, const IoBenchOptions& o) {
  IoBenchPhase p;
  p.kind = kind;
  p.readers = readers;
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> files{0}, bytes{0};
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
  std::vector<Clock::time_point> finished(readers, start);  // the phase ends with its last reader
  auto work = [&](int t) {
    std::vector<char> buf(kPieceBytes);
    for (size_t i; Clock::now() < deadline && (i = next.fetch_add(1)) < items.size();) {
      uint64_t n = ReadItem(items[i], cold, &buf);
      bytes += n;
      ++files;
    }
    finished[t] = Clock::now();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < readers; ++t) pool.emplace_back(work, t);
  if (o.progress) {
    while (next.load() < items.size() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      o.progress(fmt::format("{} x{}", kind, readers), uint64_t(ms), uint64_t(budget_s * 1000));
    }
  }
  for (auto& t : pool) t.join();
  p.seconds = std::chrono::duration<double>(*std::max_element(finished.begin(), finished.end()) - start).count();
  p.files = files;
  p.bytes = bytes;
  if (p.seconds > 0) {
    p.mb_per_s = double(p.bytes) / 1e6 / p.seconds;
    p.files_per_s = kind == kPhaseSmallFiles ? double(p.files) / p.seconds : 0;
  }
  return p;
}

std::string Mb(double mb_per_s) { return fmt::format("{:.0f} MB/s", mb_per_s); }

}  // namespace

void ConcludeIoBench(IoBenchReport* r) {
  r->findings.clear();
  for (const auto& p : r->phases) {
    auto& best = p.kind == kPhaseSequential ? r->sequential_mb_per_s : r->small_mb_per_s;
    if (!best || p.mb_per_s > *best) best = p.mb_per_s;
    if (p.kind == kPhaseSmallFiles && (!r->small_files_per_s || p.files_per_s > *r->small_files_per_s))
      r->small_files_per_s = p.files_per_s;
  }
  if (r->sequential_mb_per_s && r->small_mb_per_s && *r->small_mb_per_s > 0)
    r->small_file_penalty = *r->sequential_mb_per_s / *r->small_mb_per_s;
  // Most of the bytes are in small files: what the job reads goes through the small-file path.
  bool mostly_small = r->mean_small_file_bytes * double(r->small_files) * 2 >= double(r->bytes);
  if (!mostly_small) r->packing_helps = false;  // already large files, whatever the penalty
  r->read_path = mostly_small && r->small_mb_per_s ? kPhaseSmallFiles : kPhaseSequential;
  if (r->small_file_penalty) {
    if (mostly_small) r->packing_helps = *r->small_file_penalty >= kPackingHelpsPenalty;
    r->findings.push_back(fmt::format(
        "large files read at {:.1f}x the rate of small files ({} vs {} at {:.0f} files/s of {:.0f} KB mean)",
        *r->small_file_penalty, Mb(*r->sequential_mb_per_s), Mb(*r->small_mb_per_s), *r->small_files_per_s,
        r->mean_small_file_bytes / 1e3));
  } else if (!r->sequential_mb_per_s) {
    r->findings.push_back(fmt::format(
        "no file of {} MiB or more under the path: sequential reads not measured; pack a sample "
        "(stepdoctor tfrecord pack) and run io-bench on the shards to measure the small-file penalty",
        kLargeFileBytes >> 20));
  }
  if (r->need) {
    bool small = r->read_path == kPhaseSmallFiles;
    const std::string& kind = r->read_path;
    r->readers_needed = 0;
    for (const auto& p : r->phases)
      if (p.kind == kind && p.mb_per_s >= r->need->mb_per_s && (r->readers_needed == 0 || p.readers < r->readers_needed))
        r->readers_needed = p.readers;
    r->can_feed = r->readers_needed > 0;
    double best = small ? r->small_mb_per_s.value_or(0) : r->sequential_mb_per_s.value_or(0);
    if (*r->can_feed)
      r->findings.push_back(fmt::format("storage can feed the job: {:.0f} samples/s x {:.1f} KB = {} needs {} reader{} "
                                        "(best measured {})",
                                        r->need->samples_per_s, r->need->bytes_per_sample / 1e3, Mb(r->need->mb_per_s),
                                        r->readers_needed, r->readers_needed == 1 ? "" : "s", Mb(best)));
    else
      r->findings.push_back(fmt::format("storage cannot feed the job: it needs {} ({:.0f} samples/s x {:.1f} KB) and "
                                        "the best measured was {}",
                                        Mb(r->need->mb_per_s), r->need->samples_per_s, r->need->bytes_per_sample / 1e3,
                                        Mb(best)));
  }
  if (r->packing_helps.value_or(false))
    r->findings.push_back(fmt::format(
        "packing into shards would help: the same storage reads large files {:.1f}x faster "
        "(stepdoctor tfrecord pack DIR -o OUT, then read with TFRecordDataset(num_parallel_reads=...))",
        *r->small_file_penalty));
  else if (r->packing_helps && !mostly_small)
    r->findings.push_back("the data is already in large files: packing would not help");
  else if (r->packing_helps)
    r->findings.push_back(fmt::format("packing would gain little: small files already read at {:.0f}% of the "
                                      "sequential rate",
                                      100.0 / *r->small_file_penalty));
  if (!r->cold) r->findings.push_back("figures are warm (page cache): " + r->cache_note);
}

Result<IoBenchReport> RunIoBench(const IoBenchOptions& o) {
  IoBenchReport r;
  r.path = o.path;
  std::vector<std::pair<std::string, uint64_t>> files;
  std::error_code ec;
  if (fs::is_regular_file(o.path, ec)) {
    files.emplace_back(o.path, fs::file_size(o.path, ec));
  } else if (fs::is_directory(o.path, ec)) {
    for (auto it = fs::recursive_directory_iterator(o.path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec)) files.emplace_back(it->path().string(), it->file_size(ec));
    if (ec) return Result<IoBenchReport>(ErrorCode::kIoError, o.path + ": cannot list: " + ec.message());
  } else {
    return Result<IoBenchReport>(ErrorCode::kNotFound, o.path + ": no such file or folder");
  }
  std::sort(files.begin(), files.end());
  std::vector<const std::string*> small;
  std::vector<Item> pieces;
  for (const auto& [path, size] : files) {
    r.bytes += size;
    if (size >= kLargeFileBytes) {
      ++r.large_files;
      for (uint64_t off = 0; off < size; off += kPieceBytes) pieces.push_back({&path, off, std::min(kPieceBytes, size - off)});
    } else {
      ++r.small_files;
      r.mean_small_file_bytes += double(size);
      small.push_back(&path);
    }
  }
  r.files = files.size();
  if (r.files == 0 || r.bytes == 0)
    return Result<IoBenchReport>(ErrorCode::kEmptyInput, o.path + ": no non-empty files to read");
  r.mean_file_bytes = double(r.bytes) / double(r.files);
  if (r.small_files > 0) r.mean_small_file_bytes /= double(r.small_files);
  r.small_file_threshold_bytes = kLargeFileBytes;

  // Small files in a seeded random order: a sample of the folder's own size distribution.
  std::mt19937_64 rng(o.seed);
  for (size_t i = small.size(); i > 1; --i) std::swap(small[i - 1], small[rng() % i]);
  if (small.size() > kMaxSampledFiles) small.resize(kMaxSampledFiles);
  std::vector<Item> small_items;
  for (const auto* p : small) small_items.push_back({p, 0, 0});

  const auto& probe = r.large_files > 0 ? *pieces.front().path : *small.front();
  uint64_t probe_size = 0;
  for (const auto& [path, size] : files)
    if (&path == &probe) probe_size = size;
  r.cold = o.cold && CacheCanBeDropped(probe, probe_size);
  r.cache_note = !o.cold ? "asked for warm reads (--warm): files may come from the page cache"
                 : r.cold ? "cold: each file dropped from the page cache (posix_fadvise DONTNEED) before it is read"
                          : "the page cache could not be dropped here (tmpfs or a network file system): "
                            "files may come from memory";

  std::vector<int> readers;
  for (int n = 1; n < o.max_threads; n *= 2) readers.push_back(n);
  readers.push_back(std::max(1, o.max_threads));
  if (small_items.size() < kMinSmallFiles) small_items.clear();
  int kinds = (pieces.empty() ? 0 : 1) + (small_items.empty() ? 0 : 1);
  double budget = o.duration_s / double(std::max<size_t>(1, readers.size() * kinds));
  for (int n : readers) {
    if (!pieces.empty()) r.phases.push_back(RunPhase(kPhaseSequential, pieces, n, budget, r.cold, o));
    if (!small_items.empty()) r.phases.push_back(RunPhase(kPhaseSmallFiles, small_items, n, budget, r.cold, o));
  }
  if (o.samples_per_s > 0 || o.need_mb_per_s > 0) {
    IoBenchNeed need;
    need.bytes_per_sample = o.bytes_per_sample > 0 ? o.bytes_per_sample : r.mean_file_bytes;
    need.samples_per_s = o.samples_per_s > 0 ? o.samples_per_s : o.need_mb_per_s * 1e6 / need.bytes_per_sample;
    need.mb_per_s = o.samples_per_s > 0 ? need.samples_per_s * need.bytes_per_sample / 1e6 : o.need_mb_per_s;
    need.source = o.need_source;
    r.need = need;
  }
  ConcludeIoBench(&r);
  return r;
}

}  // namespace stepdoctor
