// Finds where one JSON value ends, tracking only strings and nesting (no validation).
// It lets the Chrome-trace tokenizer cut a stream into whole events without a DOM, and skip a
// top-level value of any size in pieces (ScanValueResume) without holding it.
#pragma once

#include <cstddef>
#include <string>

namespace stepdoctor::chrome {

inline constexpr size_t kIncomplete = static_cast<size_t>(-1);

// `data[begin]` is the first byte of a value (not whitespace). Returns the offset one past the
// value's last byte, or kIncomplete when the value runs past `end`. A scalar ends at the first
// ',', ']', '}' or whitespace; it is kIncomplete when it touches `end` (more digits may follow)
// unless `at_eof`.
size_t ScanValueEnd(const char* data, size_t begin, size_t end, bool at_eof);

// Where a container or string value scanned in pieces has got to.
struct ValueScanState {
  int depth = 0;           // open brackets and braces
  bool in_string = false;
  bool escape = false;     // the last byte scanned was a backslash inside a string
  bool started = false;    // the value's first byte has been seen
};

// Continues scanning a container ('{', '[') or string ('"') value from data[begin]; on the
// first call data[begin] is the value's first byte. Returns one past the value's end, or
// kIncomplete once every byte up to `end` is scanned (the state then remembers where it was,
// and the next call passes the bytes that follow). REQUIRED: the value is not a scalar.
size_t ScanValueResume(const char* data, size_t begin, size_t end, ValueScanState* st);

// Copies the JSON object data[0, n) to *out with every value longer than `max_bytes` that is not a
// string replaced by null: the event's own fields and those of its "args" object. A huge array or
// object inside an event (1 GiB of nested '[') then costs its bytes, not simdjson's 4-byte index
// per bracket. Returns how many values were replaced; 0, with *out unchanged, when there were none
// or data is not an object whose structure the scan can follow (the parser then judges it).
// REQUIRED: 64 readable bytes after data[n-1].
size_t CopyWithoutLargeValues(const char* data, size_t n, size_t max_bytes, std::string* out);

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace stepdoctor::chrome
