// Bytes held in a memory mapping: a plain file mapped in place, or an anonymous block (what a
// whole-buffer inflate writes into). Importers that parse bytes in place (the Chrome tokenizer)
// read such a region without copying it, and return its pages as they go.
//
// Every region is private and writable: a parser may borrow a byte or two (and restore them);
// only the pages it writes are copied, never the file. kMapPadding writable bytes of zeros
// follow the last byte (simdjson reads up to 64 bytes past its input). Known limit: a file
// truncated by another process while it is mapped raises SIGBUS on the next touch of a page
// past its new end, so only regular files are mapped, never pipes or devices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "stepdoctor/io/byte_source.h"

namespace stepdoctor {

inline constexpr size_t kMapPadding = 4096;  // writable zero bytes after a region's end
static_assert(kMapPadding >= kContiguousPadding);

class MappedRegion {
 public:
  // The file mapped; nullptr (not an error) when it is no regular file or is empty, which the
  // caller then reads with FileSource. kNotFound / kIoError name the path.
  static Result<std::unique_ptr<MappedRegion>> MapFile(const std::string& path);
  // `size` zero bytes (pages are only made resident when written); nullptr when the address
  // space cannot be had.
  static std::unique_ptr<MappedRegion> Anonymous(size_t size);
  ~MappedRegion();
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }
  // Anonymous regions only: grows or shrinks to `size`, keeping the contents (the block may
  // move). False when it cannot, the region unchanged.
  bool Resize(size_t size);
  // The bytes [0, offset) will not be touched again: drop their pages from this process (a
  // file's stay in the page cache), so resident memory stays bounded while a large input is
  // read. Cheap to call often: it acts once a few MB have been passed.
  void ReleaseBefore(size_t offset);

 private:
  MappedRegion(char* data, size_t map_len, size_t size, bool anonymous)
      : data_(data), map_len_(map_len), size_(size), anonymous_(anonymous) {}
  char* data_;
  size_t map_len_;  // bytes mapped from data_ (size_ + padding, rounded to pages)
  size_t size_;
  bool anonymous_;
  size_t released_ = 0;
};

// A ByteSource over a region: Read() copies out of it, TakeContiguous() hands the region over.
// `stored_bytes` is the size of what the bytes came from (the .gz for an inflated region) and
// scales consumed()/total() for progress.
std::unique_ptr<ByteSource> RegionSource(std::unique_ptr<MappedRegion> region, std::string name,
                                         uint64_t stored_bytes);

}  // namespace stepdoctor
