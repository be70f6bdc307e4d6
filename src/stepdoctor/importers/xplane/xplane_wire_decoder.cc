#include "stepdoctor/importers/xplane/xplane_wire_decoder.h"

#include <cstring>

namespace stepdoctor::xplane {

using wire::Cursor;
using wire::Message;

namespace {

// Tags (field number << 3 | wire type) of the fields read; any other tag is skipped, as
// libprotobuf treats a known number with another wire type as an unknown field.
constexpr uint32_t Tag(uint32_t field, uint32_t wt) { return field << 3 | wt; }

constexpr int kPlaneFieldDepth = wire::kRecursionLimit - 1;  // a message directly in the plane

}  // namespace

bool WirePlane::Index(std::string_view plane_bytes) {
  name = {};
  stat_metadata.clear();
  event_metadata.clear();
  stats.clear();
  lines.clear();
  bad = false;
  Cursor c(plane_bytes);
  while (!c.done()) {
    uint32_t tag;
    if (!wire::NextTag(c, &tag)) return false;
    if ((tag & 7) != wire::kLen) {
      if (!wire::SkipField(c, tag, wire::kRecursionLimit)) return false;
      continue;
    }
    std::string_view b;
    if (!wire::ReadBytes(c, &b)) return false;
    switch (tag >> 3) {
      case 2: name = b; break;
      case 3: lines.push_back(b); break;  // checked as they are read
      case 4:
        if (!wire::CheckMessage(b, Message::kEventMetaEntry, kPlaneFieldDepth)) return false;
        event_metadata.push_back(b);
        break;
      case 5:
        if (!wire::CheckMessage(b, Message::kStatMetaEntry, kPlaneFieldDepth)) return false;
        stat_metadata.push_back(b);
        break;
      case 6:
        if (!wire::CheckMessage(b, Message::kStat, kPlaneFieldDepth)) return false;
        stats.push_back(b);
        break;
      default: break;
    }
  }
  return true;
}

bool WireDecoder::DecodeStat(std::string_view b, int depth, StatView* out) {
  StatView& v = *out;
  v = StatView{};
  Cursor c(b);
  while (!c.done()) {
    uint32_t tag;
    if (!wire::NextTag(c, &tag)) return false;
    uint64_t x;
    switch (tag) {
      case Tag(1, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        v.metadata_id = static_cast<int64_t>(x);
        break;
      case Tag(2, wire::kFixed64):
        if (!wire::ReadFixed64(c, &x)) return false;
        std::memcpy(&v.d, &x, 8);
        v.value_case = StatCase::kDouble;
        break;
      case Tag(3, wire::kVarint):
      case Tag(7, wire::kVarint):
        if (!wire::ReadVarint(c, &v.u)) return false;
        v.value_case = tag == Tag(3, wire::kVarint) ? StatCase::kUint64 : StatCase::kRef;
        break;
      case Tag(4, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        v.i = static_cast<int64_t>(x);
        v.value_case = StatCase::kInt64;
        break;
      case Tag(5, wire::kLen):
      case Tag(6, wire::kLen):
        if (!wire::ReadBytes(c, &v.s)) return false;
        v.value_case = tag == Tag(5, wire::kLen) ? StatCase::kStr : StatCase::kBytes;
        break;
      default:
        if (!wire::SkipField(c, tag, depth)) return false;  // XStat holds no message fields
    }
  }
  return true;
}

bool WireDecoder::DecodeLine(std::string_view b, WireLine* out) {
  WireLine& l = *out;
  l.bytes = b;
  Cursor c(b);
  while (!c.done()) {
    uint32_t tag;
    if (!wire::NextTag(c, &tag)) return false;
    uint64_t x;
    std::string_view s;
    switch (tag) {
      case Tag(1, wire::kVarint):
      case Tag(3, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        (tag == Tag(1, wire::kVarint) ? l.id : l.timestamp_ns) = static_cast<int64_t>(x);
        break;
      case Tag(2, wire::kLen):
      case Tag(11, wire::kLen):
        if (!wire::ReadBytes(c, &s)) return false;
        (tag == Tag(2, wire::kLen) ? l.name : l.display_name) = s;
        break;
      case Tag(4, wire::kLen):
        if (!wire::ReadBytes(c, &s)) return false;  // events: checked as ForEachEvent reads them
        ++l.events;
        break;
      default:
        if (!wire::SkipField(c, tag, kLineDepth)) return false;
    }
  }
  return true;
}

bool WireDecoder::DecodeEvent(std::string_view b, WireEvent* out) {
  WireEvent& e = *out;
  e.metadata_id = e.offset_ps = e.duration_ps = 0;
  e.aggregated = false;
  e.n_stats = 0;
  e.bytes = b;
  Cursor c(b);
  while (!c.done()) {
    uint32_t tag;
    if (!wire::NextTag(c, &tag)) return false;
    uint64_t x;
    std::string_view s;
    switch (tag) {
      case Tag(1, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        e.metadata_id = static_cast<int64_t>(x);
        break;
      case Tag(2, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        e.offset_ps = static_cast<int64_t>(x);
        e.aggregated = false;
        break;
      case Tag(5, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        e.offset_ps = 0;  // the oneof now holds num_occurrences
        e.aggregated = true;
        break;
      case Tag(3, wire::kVarint):
        if (!wire::ReadVarint(c, &x)) return false;
        e.duration_ps = static_cast<int64_t>(x);
        break;
      case Tag(4, wire::kLen): {
        // Every stat is decoded (so checked) here, kept or not, read by the converter or not.
        if (!wire::ReadBytes(c, &s)) return false;
        StatView spare;
        StatView* st = e.n_stats < WireEvent::kInlineStats ? &e.stats[e.n_stats] : &spare;
        if (!DecodeStat(s, kEventStatDepth, st)) return false;
        ++e.n_stats;
        break;
      }
      default:
        if (!wire::SkipField(c, tag, kEventDepth)) return false;
    }
  }
  return true;
}

int64_t WireDecoder::EntryKey(std::string_view entry) {
  Cursor c(entry);
  int64_t key = 0;
  while (!c.done()) {
    uint32_t tag;
    if (!wire::NextTag(c, &tag)) break;
    if (tag == Tag(1, wire::kVarint)) {
      uint64_t x;
      if (!wire::ReadVarint(c, &x)) break;
      key = static_cast<int64_t>(x);
    } else if (!wire::SkipField(c, tag, wire::kRecursionLimit)) {
      break;
    }
  }
  return key;
}

std::string_view WireDecoder::EntryValueBytes(std::string_view entry, uint32_t field) {
  std::string_view out;
  ForEachLen(entry, 2, [&](std::string_view value) { ForEachLen(value, field, [&](std::string_view s) { out = s; }); });
  return out;
}

}  // namespace stepdoctor::xplane
