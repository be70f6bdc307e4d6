#include "stepdoctor/importers/tfevents/tfrecord_reader.h"

#include <algorithm>
#include <cstring>

#include "stepdoctor/importers/tfevents/crc32c.h"

namespace stepdoctor::tfevents {
namespace {

constexpr size_t kChunk = 1 << 20;
constexpr size_t kHeader = 12;  // length + its CRC
constexpr size_t kFooter = 4;   // data CRC

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

Result<bool> TfRecordReader::Fill(size_t n) {
  if (buf_.size() - pos_ >= n) return true;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    base_ += pos_;
    pos_ = 0;
  }
  while (buf_.size() < n && !eof_) {
    size_t have = buf_.size();
    // Grow by at least a chunk, and at most double what we hold, so a damaged length that
    // slipped past the checks cannot make us allocate it before the bytes exist.
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

bool TfRecordReader::HeaderAt(size_t at, uint64_t* len) const {
  std::memcpy(len, buf_.data() + at, 8);
  return MaskCrc(Crc32c(std::string_view(buf_.data() + at, 8))) == Load32(buf_.data() + at + 8) &&
         *len <= kMaxRecordBytes;
}

Result<TfRecordReader::Next> TfRecordReader::Read(std::string_view* record) {
  for (;;) {
    auto ok = Fill(kHeader);
    if (!ok.ok()) return ok.status();
    if (!*ok) {
      offset_ = base_ + pos_;
      if (buf_.size() == pos_) return Next::kEnd;
      if (resync_) {  // trailing bytes after damage, too short for a record
        skipped_ += buf_.size() - pos_;
        pos_ = buf_.size();
        return Next::kEnd;
      }
      return Next::kTruncated;
    }
    uint64_t len = 0;
    if (!HeaderAt(pos_, &len)) {
      if (!resync_) {
        // Report the damage once, then look for the next header byte by byte.
        offset_ = base_ + pos_;
        resync_ = true;
        ++pos_;
        ++skipped_;
        return Next::kCorrupt;
      }
      ++pos_;
      ++skipped_;
      continue;
    }
    resync_ = false;
    offset_ = base_ + pos_;
    ok = Fill(kHeader + len + kFooter);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Next::kTruncated;
    const char* data = buf_.data() + pos_ + kHeader;
    std::string_view rec(data, len);
    uint32_t want = Load32(data + len);
    pos_ += kHeader + len + kFooter;
    if (MaskCrc(Crc32c(rec)) != want) return Next::kCorrupt;  // the length was sound: skip this one
    *record = rec;
    return Next::kRecord;
  }
}

}  // namespace stepdoctor::tfevents
