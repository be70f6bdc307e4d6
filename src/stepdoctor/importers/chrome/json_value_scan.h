// Finds where one JSON value ends, tracking only strings and nesting (no validation).
// It lets the Chrome-trace tokenizer cut a stream into whole events without a DOM.
#pragma once

#include <cstddef>

namespace stepdoctor::chrome {

inline constexpr size_t kIncomplete = static_cast<size_t>(-1);

// `data[begin]` is the first byte of a value (not whitespace). Returns the offset one past the
// value's last byte, or kIncomplete when the value runs past `end`. A scalar ends at the first
// ',', ']', '}' or whitespace; it is kIncomplete when it touches `end` (more digits may follow)
// unless `at_eof`.
size_t ScanValueEnd(const char* data, size_t begin, size_t end, bool at_eof);

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace stepdoctor::chrome
