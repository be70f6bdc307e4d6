// A read-ahead buffer over a ByteSource for record readers (TFRecord framing, protobuf
// fields): Fill(n) makes n bytes available at the read position, dropping consumed bytes, so
// memory grows with the largest record, not with the file.
#pragma once

#include <cstdint>
#include <string>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"

namespace stepdoctor {

class StreamBuffer {
 public:
  explicit StreamBuffer(ByteSource& src) : src_(src) {}

  // Ensures n bytes at data(); false when the input ends first (what there is stays
  // available). The buffer grows by at most what it already holds per read, so a corrupt
  // length cannot make it allocate gigabytes before the bytes exist. Invalidates data().
  Result<bool> Fill(size_t n);
  const char* data() const { return buf_.data() + pos_; }
  size_t available() const { return buf_.size() - pos_; }
  // REQUIRED: n <= available().
  void Skip(size_t n) { pos_ += n; }
  // Stream offset of data()[0], for messages.
  uint64_t offset() const { return base_ + pos_; }

 private:
  ByteSource& src_;
  std::string buf_;    // pending bytes are [pos_, buf_.size())
  size_t pos_ = 0;
  uint64_t base_ = 0;  // stream offset of buf_[0]
  bool eof_ = false;
};

}  // namespace stepdoctor
