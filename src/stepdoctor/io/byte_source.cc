#include "stepdoctor/io/byte_source.h"

#include <thread>

#include "stepdoctor/io/mapped_file.h"
#include "stepdoctor/io/prefetch_source.h"
#include "stepdoctor/io/whole_gzip.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace stepdoctor {
namespace {

class MemSrc final : public ByteSource {
 public:
  MemSrc(std::string_view b, std::string name) : bytes_(b), name_(std::move(name)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min(n, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override { return pos_; }
  uint64_t total() const override { return bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  std::string name_;
};

class FileSrc final : public ByteSource {
 public:
  FileSrc(int fd, std::string path, uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  ~FileSrc() override { ::close(fd_); }
  Result<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      ssize_t r = ::read(fd_, buf, n);
      if (r >= 0) {
        pos_ += static_cast<uint64_t>(r);
        return static_cast<size_t>(r);
      }
      if (errno == EINTR) continue;
      return Result<size_t>(ErrorCode::kIoError, path_ + ": " + std::strerror(errno));
    }
  }
  const std::string& name() const override { return path_; }
  uint64_t consumed() const override { return pos_; }
  uint64_t total() const override { return size_; }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

class GzipSrc final : public ByteSource {
 public:
  // window_bits: 16 + MAX_WBITS expects gzip headers, MAX_WBITS a zlib (RFC 1950) stream.
  GzipSrc(std::unique_ptr<ByteSource> inner, int window_bits) : inner_(std::move(inner)), in_(kInChunk) {
    std::memset(&zs_, 0, sizeof zs_);
    inflateInit2(&zs_, window_bits);
    kind_ = window_bits > MAX_WBITS ? "gzip" : "zlib";
  }
  ~GzipSrc() override { inflateEnd(&zs_); }

  Result<size_t> Read(char* buf, size_t n) override {
    if (done_) return size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0) {
        auto r = inner_->Read(reinterpret_cast<char*>(in_.data()), in_.size());
        if (!r.ok()) return r;
        if (*r == 0) {
          if (!stream_end_) {
            // The compressed stream stopped before its end: a truncated .gz.
            truncated_ = true;
          }
          done_ = true;
          break;
        }
        zs_.next_in = in_.data();
        zs_.avail_in = static_cast<uInt>(*r);
      }
      if (stream_end_) {
        // Another gzip member follows (concatenated .gz): start it afresh.
        inflateReset(&zs_);
        stream_end_ = false;
      }
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        stream_end_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        if (produced(buf) > 0) {  // hand over what was inflated before the damage
          done_ = true;
          corrupt_ = true;
          break;
        }
        return Result<size_t>(ErrorCode::kCorruptInput,
                              inner_->name() + ": " + kind_ + " data is corrupt (" + (zs_.msg ? zs_.msg : "inflate failed") + ")");
      }
    }
    return produced(buf);  // a cut stream ends early; callers ask truncated()
  }
  const std::string& name() const override { return inner_->name(); }
  uint64_t consumed() const override { return inner_->consumed(); }
  uint64_t total() const override { return inner_->total(); }
  bool truncated() const override { return truncated_ || corrupt_; }

 private:
  size_t produced(char* buf) const { return reinterpret_cast<char*>(zs_.next_out) - buf; }
  static constexpr size_t kInChunk = 1 << 18;
  std::unique_ptr<ByteSource> inner_;
  std::vector<Bytef> in_;
  z_stream zs_;
  bool stream_end_ = false;
  bool done_ = false;
  bool truncated_ = false;
  bool corrupt_ = false;
  std::string kind_;  // "gzip" or "zlib", for messages
};

bool IsGzipMagic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

}  // namespace

std::unique_ptr<ByteSource> MemorySource(std::string_view bytes, std::string name) {
  return std::make_unique<MemSrc>(bytes, std::move(name));
}

Result<std::unique_ptr<ByteSource>> FileSource(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return Result<std::unique_ptr<ByteSource>>(e == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError,
                                               path + ": " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Result<std::unique_ptr<ByteSource>>(ErrorCode::kIoError, path + ": is a directory or unreadable");
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(std::make_unique<FileSrc>(fd, path, static_cast<uint64_t>(st.st_size)));
}

std::unique_ptr<ByteSource> GzipSource(std::unique_ptr<ByteSource> inner) {
  return std::make_unique<GzipSrc>(std::move(inner), 16 + MAX_WBITS);
}

std::unique_ptr<ByteSource> ZlibSource(std::unique_ptr<ByteSource> inner) {
  return std::make_unique<GzipSrc>(std::move(inner), MAX_WBITS);
}

Result<std::string_view> PeekableSource::Peek(size_t n) {
  while (head_.size() < n) {
    size_t old = head_.size();
    head_.resize(n);
    auto r = inner_->Read(head_.data() + old, n - old);
    if (!r.ok()) {
      head_.resize(old);
      return Result<std::string_view>(r.status());
    }
    head_.resize(old + *r);
    if (*r == 0) break;
  }
  return std::string_view(head_).substr(head_pos_, std::min(n, head_.size()) - head_pos_);
}

char* PeekableSource::TakeContiguous(size_t rewind, size_t* len) {
  // The replayed head is a copy of the inner source's first unread-here bytes: take the
  // inner block from where the head began.
  char* p = inner_->TakeContiguous(rewind + (head_.size() - head_pos_), len);
  if (p) {
    head_.clear();
    head_.shrink_to_fit();
    head_pos_ = 0;
  }
  return p;
}

Result<size_t> PeekableSource::Read(char* buf, size_t n) {
  if (head_pos_ < head_.size()) {
    size_t k = std::min(n, head_.size() - head_pos_);
    std::memcpy(buf, head_.data() + head_pos_, k);
    head_pos_ += k;
    if (head_pos_ == head_.size()) {
      head_.clear();
      head_.shrink_to_fit();
      head_pos_ = 0;
    }
    return k;
  }
  return inner_->Read(buf, n);
}

GzipInflater ResolveInflater(GzipInflater requested) {
  if (requested != GzipInflater::kAuto) return requested;
  if (const char* env = std::getenv("STEPDOCTOR_INFLATE")) {
    if (std::strcmp(env, "zlib") == 0) return GzipInflater::kZlib;
    if (std::strcmp(env, "libdeflate") == 0) return GzipInflater::kLibdeflate;
  }
  return GzipInflater::kLibdeflate;  // measured: docs/performance.md, "gzip input"
}

namespace {

// zlib streaming: inflate on a second core while the importer parses, where there is one.
std::unique_ptr<PeekableSource> ZlibStreaming(std::unique_ptr<ByteSource> raw) {
  std::unique_ptr<ByteSource> gz = GzipSource(std::move(raw));
  if (WorkerThreads() > 1) gz = PrefetchSource(std::move(gz));
  return std::make_unique<PeekableSource>(std::move(gz));
}

// The .gz held whole in `gz`, inflated with libdeflate where that path is chosen and takes it;
// nullptr to stream it through zlib instead.
std::unique_ptr<PeekableSource> MaybeInflateWhole(std::string_view gz, const std::string& name, GzipInflater inflater) {
  if (ResolveInflater(inflater) != GzipInflater::kLibdeflate) return nullptr;
  WholeInflate w = InflateGzipWhole(gz);
  if (!w.region) return nullptr;
  return std::make_unique<PeekableSource>(RegionSource(std::move(w.region), name, gz.size()));
}

std::unique_ptr<PeekableSource> WrapMaybeGzip(std::unique_ptr<PeekableSource> raw, Status* st) {
  auto head = raw->Peek(2);
  if (!head.ok()) {
    *st = head.status();
    return nullptr;
  }
  if (!IsGzipMagic(*head)) return raw;
  return ZlibStreaming(std::move(raw));
}

}  // namespace

Result<std::unique_ptr<PeekableSource>> OpenMaybeCompressed(const std::string& path, GzipInflater inflater) {
  using R = Result<std::unique_ptr<PeekableSource>>;
  auto mapped = MappedRegion::MapFile(path);
  if (!mapped.ok()) return R(mapped.status());
  if (*mapped) {
    std::string_view bytes((*mapped)->data(), (*mapped)->size());
    if (!IsGzipMagic(bytes)) {
      const uint64_t size = bytes.size();
      return std::make_unique<PeekableSource>(RegionSource(std::move(mapped).value(), path, size));
    }
    if (auto whole = MaybeInflateWhole(bytes, path, inflater)) return whole;  // the mapping goes now
    // Streaming: read the .gz rather than map it, so its pages do not add to resident memory.
  }
  auto f = FileSource(path);
  if (!f.ok()) return R(f.status());
  Status st;
  auto src = WrapMaybeGzip(std::make_unique<PeekableSource>(std::move(f).value()), &st);
  if (!src) return R(st);
  return src;
}

std::unique_ptr<PeekableSource> OpenMaybeCompressed(std::string_view bytes, std::string name, GzipInflater inflater) {
  if (IsGzipMagic(bytes)) {
    if (auto whole = MaybeInflateWhole(bytes, name, inflater)) return whole;
    return ZlibStreaming(MemorySource(bytes, std::move(name)));
  }
  return std::make_unique<PeekableSource>(MemorySource(bytes, std::move(name)));
}

int WorkerThreads() {
  if (const char* env = std::getenv("STEPDOCTOR_THREADS")) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : int(hc);
}

Result<std::string> ReadAll(ByteSource& src, size_t max_bytes) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    auto r = src.Read(buf, sizeof buf);
    if (!r.ok()) return Result<std::string>(r.status());
    if (*r == 0) break;
    if (out.size() + *r > max_bytes)
      return Result<std::string>(ErrorCode::kInvalidArgument, src.name() + ": larger than " + std::to_string(max_bytes) + " bytes");
    out.append(buf, *r);
  }
  return out;
}

}  // namespace stepdoctor
