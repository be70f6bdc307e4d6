#include "stepdoctor/io/stream_buffer.h"

#include <algorithm>

namespace stepdoctor {
namespace {
constexpr size_t kChunk = 1 << 20;  // read granularity
}  // namespace

Result<bool> StreamBuffer::Fill(size_t n) {
  if (buf_.size() - pos_ >= n) return true;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    base_ += pos_;
    pos_ = 0;
  }
  while (buf_.size() < n && !eof_) {
    size_t have = buf_.size();
    size_t want = std::max(kChunk, std::min(n - have, have));
    buf_.resize(have + want);
    auto r = src_.Read(buf_.data() + have, want);
    if (!r.ok()) {
      buf_.resize(have);
      return r.status();
    }
    buf_.resize(have + *r);
    if (*r == 0) eof_ = true;
  }
  return buf_.size() >= n;
}

}  // namespace stepdoctor
