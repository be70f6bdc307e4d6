#include "stepdoctor/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stepdoctor {
namespace {

constexpr size_t kReleaseStep = 8u << 20;  // ReleaseBefore acts once this much more was passed

size_t PageSize() {
  static const size_t kPage = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return kPage;
}
size_t RoundUpToPage(size_t n) { return (n + PageSize() - 1) & ~(PageSize() - 1); }

}  // namespace

Result<std::unique_ptr<MappedRegion>> MappedRegion::MapFile(const std::string& path) {
  using R = Result<std::unique_ptr<MappedRegion>>;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return R(e == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError, path + ": " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    ::close(fd);
    return std::unique_ptr<MappedRegion>();  // a pipe, a device, an empty file: read it instead
  }
  const size_t size = static_cast<size_t>(st.st_size);
  // Reserve the file's pages plus the padding as zeros, then lay the file over the front: the
  // bytes past its end read as zeros and may be written, whatever page the file ends on.
  const size_t map_len = RoundUpToPage(size + kMapPadding);
  void* base = ::mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    ::close(fd);
    return std::unique_ptr<MappedRegion>();
  }
  void* file = ::mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
  ::close(fd);  // the mapping keeps the file open
  if (file == MAP_FAILED) {
    ::munmap(base, map_len);
    return std::unique_ptr<MappedRegion>();
  }
  ::madvise(base, size, MADV_SEQUENTIAL);
  return std::unique_ptr<MappedRegion>(new MappedRegion(static_cast<char*>(base), map_len, size, false));
}

std::unique_ptr<MappedRegion> MappedRegion::Anonymous(size_t size) {
  const size_t map_len = RoundUpToPage(size + kMapPadding);
  void* base = ::mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  // Faulting in fresh 4 KB pages costs about as much as inflating into them: ask for 2 MB ones
  // (measured: libdeflate into a new block 800 MB/s, 1400 MB/s with huge pages).
  ::madvise(base, map_len, MADV_HUGEPAGE);
  return std::unique_ptr<MappedRegion>(new MappedRegion(static_cast<char*>(base), map_len, size, true));
}

MappedRegion::~MappedRegion() { ::munmap(data_, map_len_); }

bool MappedRegion::Resize(size_t size) {
  if (!anonymous_) return false;
  const size_t map_len = RoundUpToPage(size + kMapPadding);
  void* p = ::mremap(data_, map_len_, map_len, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) return false;
  data_ = static_cast<char*>(p);
  map_len_ = map_len;
  ::madvise(data_, map_len_, MADV_HUGEPAGE);
  // Shrinking leaves old bytes in what is now padding: the padding reads as zeros, always.
  if (size < size_) std::memset(data_ + size, 0, std::min(size_ - size, map_len - size));
  size_ = size;
  return true;
}

void MappedRegion::ReleaseBefore(size_t offset) {
  size_t upto = std::min(offset, size_) & ~(PageSize() - 1);
  if (upto < released_ + kReleaseStep) return;
  ::madvise(data_ + released_, upto - released_, MADV_DONTNEED);
  released_ = upto;
}

namespace {

class RegionSrc final : public ByteSource {
 public:
  RegionSrc(std::unique_ptr<MappedRegion> r, std::string name, uint64_t stored)
      : region_(std::move(r)), name_(std::move(name)), stored_(stored) {}
  Result<size_t> Read(char* buf, size_t n) override {
    if (taken_) return size_t{0};
    size_t k = std::min(n, region_->size() - pos_);
    std::memcpy(buf, region_->data() + pos_, k);
    pos_ += k;
    return k;
  }
  char* TakeContiguous(size_t rewind, size_t* len) override {
    if (rewind > pos_) return nullptr;
    char* p = region_->data() + (pos_ - rewind);
    *len = region_->size() - (pos_ - rewind);
    base_ = pos_ - rewind;
    pos_ = base_;
    taken_ = true;
    return p;
  }
  // The block's reader reports its progress here: consumed() follows it.
  void ReleaseBefore(size_t offset) override {
    pos_ = std::max(pos_, std::min(base_ + offset, region_->size()));
    region_->ReleaseBefore(pos_);
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override {
    return region_->size() == stored_ ? pos_ : uint64_t(double(pos_) / double(region_->size()) * double(stored_));
  }
  uint64_t total() const override { return stored_; }

 private:
  std::unique_ptr<MappedRegion> region_;
  std::string name_;
  uint64_t stored_;
  size_t pos_ = 0;
  size_t base_ = 0;  // region offset of the block TakeContiguous handed out
  bool taken_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> RegionSource(std::unique_ptr<MappedRegion> region, std::string name,
                                         uint64_t stored_bytes) {
  return std::make_unique<RegionSrc>(std::move(region), std::move(name), stored_bytes);
}

}  // namespace stepdoctor
