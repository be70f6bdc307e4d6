// Finds where one JSON value ends, tracking only strings and nesting (no validation).
// It lets the Chrome-trace tokenizer cut a stream into whole events without a DOM, and skip a
// top-level value of any size in pieces (ScanValueResume) without holding it.
#pragma once

#include <cstddef>

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

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace stepdoctor::chrome
