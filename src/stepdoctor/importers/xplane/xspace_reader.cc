#include "stepdoctor/importers/xplane/xspace_reader.h"

#include <algorithm>
#include <cstring>

namespace stepdoctor::xplane {
namespace {

constexpr uint64_t kMaxFieldBytes = 1ull << 34;   // 16 GiB: a larger length is corrupt, not big

}  // namespace

XSpaceReader::XSpaceReader(ByteSource& src) : src_(src), in_(src) {
  size_t len = 0;
  if (char* p = src.TakeContiguous(0, &len)) {
    block_ = p;
    block_len_ = len;
  }
}

Result<bool> XSpaceReader::Need(size_t n) {
  if (!block_) return in_.Fill(n);
  return block_len_ - pos_ >= n;
}

Result<bool> XSpaceReader::ReadVarint(uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    auto ok = Need(1);
    if (!ok.ok()) return ok;
    if (!*ok) return false;
    uint8_t b = static_cast<uint8_t>(At()[0]);
    Advance(1);
    *v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

Result<XSpaceReader::Next> XSpaceReader::Read(uint32_t* field, std::string_view* bytes) {
  for (;;) {
    if (block_) src_.ReleaseBefore(pos_);  // the caller is done with the fields before this one
    auto any = Need(1);
    if (!any.ok()) return any.status();
    field_offset_ = Offset();
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
        ok = Need(n);
        if (!ok.ok()) return ok.status();
        if (!*ok) return Next::kTruncated;
        Advance(n);
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
    // The buffer grows as bytes arrive, so a corrupt length cannot make us allocate it up front.
    size_t len = static_cast<size_t>(v);
    ok = Need(len);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Next::kTruncated;
    *field = number;
    *bytes = std::string_view(At(), len);  // valid until the next Read
    Advance(len);
    return Next::kField;
  }
}

}  // namespace stepdoctor::xplane
