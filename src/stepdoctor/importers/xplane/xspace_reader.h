// Cuts an XSpace byte stream into its top-level fields (one XPlane, one hostname ...) without
// parsing the whole message: the converter then parses one plane at a time, so memory is
// bounded by the largest plane, not by the file (TensorBoard parses the whole XSpace at once
// and needs many times the file size). Where the source's bytes already lie in memory (a
// mapped file, an inflated .gz: ByteSource::TakeContiguous) the fields are handed out where
// they lie, and the pages behind each are given back; otherwise they are read into a buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/io/stream_buffer.h"

namespace stepdoctor::xplane {

// Field numbers of XSpace (tensorflow.profiler wire format).
inline constexpr uint32_t kXSpacePlanes = 1;
inline constexpr uint32_t kXSpaceErrors = 2;
inline constexpr uint32_t kXSpaceWarnings = 3;
inline constexpr uint32_t kXSpaceHostnames = 4;

class XSpaceReader {
 public:
  enum class Next {
    kField,      // `field` and `bytes` hold one length-delimited top-level field
    kEnd,        // clean end of input
    kTruncated,  // the input ended inside a field; everything before it was returned
    kCorrupt,    // the bytes are not protobuf wire format here; reading stopped
  };

  explicit XSpaceReader(ByteSource& src);

  // Reads the next length-delimited top-level field, skipping scalar fields we do not use.
  // `bytes` stays valid until the next call. An I/O error is returned as an error.
  Result<Next> Read(uint32_t* field, std::string_view* bytes);
  // Byte offset of the start of the field last returned (or of the failure), for messages.
  uint64_t offset() const { return field_offset_; }

 private:
  Result<bool> ReadVarint(uint64_t* v);
  // Makes n bytes available at At(); false when the input ends first.
  Result<bool> Need(size_t n);
  const char* At() const { return block_ ? block_ + pos_ : in_.data(); }
  void Advance(size_t n) { block_ ? void(pos_ += n) : in_.Skip(n); }
  uint64_t Offset() const { return block_ ? pos_ : in_.offset(); }

  ByteSource& src_;
  StreamBuffer in_;
  const char* block_ = nullptr;  // the whole input, where the source hands it over
  size_t block_len_ = 0, pos_ = 0;
  uint64_t field_offset_ = 0;
};

}  // namespace stepdoctor::xplane
