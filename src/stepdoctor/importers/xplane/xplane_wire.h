// Bounds-checked protobuf wire reading over the bytes of one XPlane, accepting exactly what
// libprotobuf 3.21 accepts (the reference path parses with it; tests/xplane compare the two):
//   - a varint is at most 10 bytes (the value taken mod 2^64), a tag at most 5 (mod 2^32), a
//     length at most 5 with the 5th byte below 8 (under 2 GiB), and every field ends inside
//     its message;
//   - field number 0, wire types 6 and 7, and an end-group without its start are errors;
//     groups nest at most as deep as libprotobuf's recursion limit (100, less one per message);
//   - a known field number with another wire type is an unknown field, skipped.
// Nothing here allocates or reads past `end`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace stepdoctor::xplane::wire {

inline constexpr int kRecursionLimit = 100;  // libprotobuf's default for a message parse

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

struct Cursor {
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;

  Cursor() = default;
  explicit Cursor(std::string_view b)
      : p(reinterpret_cast<const uint8_t*>(b.data())), end(reinterpret_cast<const uint8_t*>(b.data()) + b.size()) {}
  bool done() const { return p >= end; }
  size_t left() const { return static_cast<size_t>(end - p); }
};

// A varint of up to 10 bytes; false (p unspecified) when it is cut or longer.
inline bool ReadVarint(Cursor& c, uint64_t* v) {
  if (c.p < c.end && *c.p < 0x80) {
    *v = *c.p++;
    return true;
  }
  const size_t n = c.left() < 10 ? c.left() : 10;  // one bound for the whole varint
  const uint8_t* p = c.p;
  uint64_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = p[i];
    r |= uint64_t(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      c.p = p + i + 1;
      *v = r;
      return true;
    }
  }
  return false;
}

// A tag: at most 5 bytes, the value kept mod 2^32 as libprotobuf's ReadTag does.
inline bool ReadTag(Cursor& c, uint32_t* tag) {
  if (c.p < c.end && *c.p < 0x80) {
    *tag = *c.p++;
    return true;
  }
  uint32_t r = 0;
  for (int i = 0; i < 5; ++i) {
    if (c.p >= c.end) return false;
    const uint8_t b = *c.p++;
    r |= uint32_t(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *tag = r;
      return true;
    }
  }
  return false;
}

// A length-delimited payload: the length (at most 5 bytes, under 2 GiB) and that many bytes.
inline bool ReadBytes(Cursor& c, std::string_view* out) {
  uint32_t n = 0;
  if (c.p < c.end && *c.p < 0x80) {
    n = *c.p++;
  } else {
    int i = 0;
    for (;; ++i) {
      if (i == 5 || c.p >= c.end) return false;
      const uint8_t b = *c.p++;
      if (i == 4 && b >= 8) return false;  // 2 GiB or more: libprotobuf refuses it
      n |= uint32_t(b & 0x7f) << (7 * i);
      if (b < 0x80) break;
    }
  }
  if (n > uint32_t{INT32_MAX} - 16 || n > c.left()) return false;  // libprotobuf's ReadSize bound
  *out = std::string_view(reinterpret_cast<const char*>(c.p), n);
  c.p += n;
  return true;
}

inline bool ReadFixed64(Cursor& c, uint64_t* v) {
  if (c.left() < 8) return false;
  std::memcpy(v, c.p, 8);  // little-endian hosts only (static_assert in xplane_wire.cc)
  c.p += 8;
  return true;
}

// Skips the body of a group whose start tag was `start_tag`, up to its end tag.
bool SkipGroup(Cursor& c, uint32_t start_tag, int depth);

// Skips one field's value of wire type `tag & 7`; false on malformed bytes.
inline bool SkipField(Cursor& c, uint32_t tag, int depth) {
  std::string_view b;
  uint64_t v;
  switch (tag & 7) {
    case kVarint: return ReadVarint(c, &v);
    case kFixed64:
      if (c.left() < 8) return false;
      c.p += 8;
      return true;
    case kLen: return ReadBytes(c, &b);
    case kStartGroup: return SkipGroup(c, tag, depth);
    case kFixed32:
      if (c.left() < 4) return false;
      c.p += 4;
      return true;
    default: return false;  // an end-group outside its group, or wire types 6 and 7
  }
}

// Reads the next tag of a message body; false on malformed bytes, field number 0 or an
// end-group tag (a message body holds no unmatched end).
inline bool NextTag(Cursor& c, uint32_t* tag) {
  if (!ReadTag(c, tag)) return false;
  return (*tag >> 3) != 0 && (*tag & 7) != kEndGroup;
}

// The message types of xplane.proto, for checking a plane's bytes in full.
enum class Message : uint8_t { kPlane, kLine, kEvent, kStat, kEventMetaEntry, kEventMeta, kStatMetaEntry, kStatMeta };

// True when `bytes` decode as the message `m` exactly where libprotobuf's parse succeeds.
// `depth` is what is left of the recursion limit (kRecursionLimit for a top-level message).
bool CheckMessage(std::string_view bytes, Message m, int depth = kRecursionLimit);

}  // namespace stepdoctor::xplane::wire
