#include "stepdoctor/importers/tfevents/tfrecord_reader.h"

#include <algorithm>
#include <cstring>

#include "stepdoctor/importers/tfevents/crc32c.h"

namespace stepdoctor::tfevents {
namespace {

constexpr size_t kHeader = 12;  // length + its CRC
constexpr size_t kFooter = 4;   // data CRC

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

bool TfRecordReader::HeaderAt(const char* at, uint64_t* len) {
  std::memcpy(len, at, 8);
  return MaskCrc(Crc32c(std::string_view(at, 8))) == Load32(at + 8) && *len <= kMaxRecordBytes;
}

Result<TfRecordReader::Next> TfRecordReader::Read(std::string_view* record) {
  damage_ = Damage::kNone;
  for (;;) {
    auto ok = in_.Fill(kHeader);
    if (!ok.ok()) return ok.status();
    if (!*ok) {
      offset_ = in_.offset();
      if (in_.available() == 0) return Next::kEnd;
      if (resync_) {  // trailing bytes after damage, too short for a record
        skipped_ += in_.available();
        in_.Skip(in_.available());
        return Next::kEnd;
      }
      return Next::kTruncated;
    }
    uint64_t len = 0;
    if (!HeaderAt(in_.data(), &len)) {
      if (!resync_) {
        // Report the damage once, then look for the next header byte by byte.
        offset_ = in_.offset();
        resync_ = true;
        damage_ = Damage::kLengthCrc;
        in_.Skip(1);
        ++skipped_;
        return Next::kCorrupt;
      }
      in_.Skip(1);
      ++skipped_;
      continue;
    }
    resync_ = false;
    offset_ = in_.offset();
    ok = in_.Fill(kHeader + len + kFooter);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Next::kTruncated;
    const char* data = in_.data() + kHeader;
    std::string_view rec(data, len);
    uint32_t want = Load32(data + len);
    in_.Skip(kHeader + len + kFooter);
    if (MaskCrc(Crc32c(rec)) != want) {  // the length was sound: skip this one
      damage_ = Damage::kDataCrc;
      return Next::kCorrupt;
    }
    *record = rec;
    return Next::kRecord;
  }
}

}  // namespace stepdoctor::tfevents
