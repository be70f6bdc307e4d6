#include "stepdoctor/importers/xplane/xplane_wire.h"

#include <bit>

namespace stepdoctor::xplane::wire {

static_assert(std::endian::native == std::endian::little, "ReadFixed64 copies little-endian bytes");

bool SkipGroup(Cursor& c, uint32_t start_tag, int depth) {
  if (--depth < 0) return false;  // libprotobuf's ParseGroup: past the recursion limit
  for (;;) {
    uint32_t tag;
    if (c.done() || !ReadTag(c, &tag)) return false;  // a group must end with its end tag
    if (tag == 0) return false;
    if ((tag & 7) == kEndGroup) return tag == start_tag + 1;  // the same field number
    if ((tag >> 3) == 0 || !SkipField(c, tag, depth)) return false;
  }
}

namespace {

// The sub-message a length-delimited field holds, by message and field number; `self` where
// the field is not a message.
Message SubMessage(Message m, uint32_t field, bool* is_message, bool* packed_varints) {
  *is_message = true;
  *packed_varints = false;
  switch (m) {
    case Message::kPlane:
      switch (field) {
        case 3: return Message::kLine;
        case 4: return Message::kEventMetaEntry;
        case 5: return Message::kStatMetaEntry;
        case 6: return Message::kStat;
      }
      break;
    case Message::kLine:
      if (field == 4) return Message::kEvent;
      break;
    case Message::kEvent:
      if (field == 4) return Message::kStat;
      break;
    case Message::kEventMetaEntry:
      if (field == 2) return Message::kEventMeta;
      break;
    case Message::kStatMetaEntry:
      if (field == 2) return Message::kStatMeta;
      break;
    case Message::kEventMeta:
      if (field == 5) return Message::kStat;
      if (field == 6) *packed_varints = true;  // repeated int64 child_id
      break;
    case Message::kStat:
    case Message::kStatMeta:
      break;
  }
  *is_message = false;
  return m;
}

bool CheckPackedVarints(std::string_view b) {
  Cursor c(b);
  uint64_t v;
  while (!c.done())
    if (!ReadVarint(c, &v)) return false;
  return true;
}

// XStat and XEvent, the bulk of a plane, checked with their known tags first.
bool CheckStat(std::string_view bytes, int depth) {
  Cursor c(bytes);
  while (!c.done()) {
    uint32_t tag;
    uint64_t v;
    std::string_view b;
    if (!NextTag(c, &tag)) return false;
    switch (tag) {
      case 1 << 3 | kVarint:
      case 3 << 3 | kVarint:
      case 4 << 3 | kVarint:
      case 7 << 3 | kVarint:
        if (!ReadVarint(c, &v)) return false;
        break;
      case 2 << 3 | kFixed64:
        if (!ReadFixed64(c, &v)) return false;
        break;
      case 5 << 3 | kLen:
      case 6 << 3 | kLen:
        if (!ReadBytes(c, &b)) return false;
        break;
      default:
        if (!SkipField(c, tag, depth)) return false;  // XStat holds no message fields
    }
  }
  return true;
}

bool CheckEvent(std::string_view bytes, int depth) {
  Cursor c(bytes);
  while (!c.done()) {
    uint32_t tag;
    uint64_t v;
    std::string_view b;
    if (!NextTag(c, &tag)) return false;
    switch (tag) {
      case 1 << 3 | kVarint:
      case 2 << 3 | kVarint:
      case 3 << 3 | kVarint:
      case 5 << 3 | kVarint:
        if (!ReadVarint(c, &v)) return false;
        break;
      case 4 << 3 | kLen:
        if (!ReadBytes(c, &b) || depth <= 0 || !CheckStat(b, depth - 1)) return false;
        break;
      default:
        if (!SkipField(c, tag, depth)) return false;  // other lengths are bytes, not messages
    }
  }
  return true;
}

}  // namespace

bool CheckMessage(std::string_view bytes, Message m, int depth) {
  if (m == Message::kEvent) return CheckEvent(bytes, depth);
  if (m == Message::kStat) return CheckStat(bytes, depth);
  Cursor c(bytes);
  while (!c.done()) {
    uint32_t tag;
    if (!NextTag(c, &tag)) return false;
    if ((tag & 7) != kLen) {
      if (!SkipField(c, tag, depth)) return false;
      continue;
    }
    std::string_view b;
    if (!ReadBytes(c, &b)) return false;
    bool is_message, packed;
    Message sub = SubMessage(m, tag >> 3, &is_message, &packed);
    if (is_message) {
      if (depth <= 0 || !CheckMessage(b, sub, depth - 1)) return false;
    } else if (packed && !CheckPackedVarints(b)) {
      return false;
    }
  }
  return true;
}

}  // namespace stepdoctor::xplane::wire
