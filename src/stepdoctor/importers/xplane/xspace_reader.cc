#include "stepdoctor/importers/xplane/xspace_reader.h"

#include <algorithm>
#include <cstring>

namespace stepdoctor::xplane {
namespace {

constexpr size_t kChunk = 1 << 20;                // read granularity
constexpr uint64_t kMaxFieldBytes = 1ull << 34;   // 16 GiB: a larger length is corrupt, not big

}  // namespace

Result<bool> XSpaceReader::Fill(size_t n) {
  if (buf_.size() - pos_ >= n) return true;
  // Drop consumed bytes, then read until n bytes are pending or the input ends.
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    base_ += pos_;
    pos_ = 0;
  }
  while (buf_.size() < n && !eof_) {
    size_t have = buf_.size();
    size_t want = std::max(kChunk, n - have);
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

Result<bool> XSpaceReader::ReadVarint(uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    auto ok = Fill(1);
    if (!ok.ok()) return ok;
    if (!*ok) return false;
    uint8_t b = static_cast<uint8_t>(buf_[pos_++]);
    *v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

Result<XSpaceReader::Next> XSpaceReader::Read(uint32_t* field, std::string_view* bytes) {
  for (;;) {
    auto any = Fill(1);
    if (!any.ok()) return any.status();
    field_offset_ = base_ + pos_;
    if (!*any) return Next::kEnd;
    uint64_t tag = 0;
    auto ok = ReadVarint(&tag);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Next::kTruncated;
    uint32_t number = static_cast<uint32_t>(tag >> 3);
    uint32_t wire = static_cast<uint32_t>(tag & 7);
    if (number == 0) return Next::kCorrupt;
    uint64_t v = 0;
    switch (wire) {
      case 0:  // varint: no top-level field of XSpace is one; skip it
        ok = ReadVarint(&v);
        if (!ok.ok()) return ok.status();
        if (!*ok) return Next::kTruncated;
        continue;
      case 1:
      case 5: {
        size_t n = wire == 1 ? 8 : 4;
        ok = Fill(n);
        if (!ok.ok()) return ok.status();
        if (!*ok) return Next::kTruncated;
        pos_ += n;
        continue;
      }
      case 2:
        break;
      default:
        return Next::kCorrupt;
    }
    ok = ReadVarint(&v);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Next::kTruncated;
    if (v > kMaxFieldBytes) return Next::kCorrupt;
    // Copy the field out of the window, then read the rest straight into it, growing the
    // buffer as bytes arrive so a corrupt length cannot make us allocate it up front.
    size_t len = static_cast<size_t>(v);
    size_t got = std::min(len, buf_.size() - pos_);
    field_.assign(buf_.data() + pos_, got);
    pos_ += got;
    while (got < len && !eof_) {
      size_t want = std::min(len - got, std::max(kChunk, got));
      field_.resize(got + want);
      auto r = src_.Read(field_.data() + got, want);
      if (!r.ok()) return r.status();
      if (*r == 0) eof_ = true;
      got += *r;
      base_ += *r;
      field_.resize(got);
    }
    if (got < len) return Next::kTruncated;
    *field = number;
    *bytes = std::string_view(field_.data(), len);
    return Next::kField;
  }
}

}  // namespace stepdoctor::xplane
