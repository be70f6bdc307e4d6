// Replaces invalid UTF-8 in JSON text so one bad byte in a name costs that byte, not the event
// (simdjson rejects a whole document with invalid UTF-8, as the JSON spec asks).
#pragma once

#include <string>
#include <string_view>

namespace stepdoctor::chrome {

// Copies `in` to `out` with each maximal invalid subsequence (the Unicode "substitution of
// maximal subparts" practice, as browsers decode) replaced by U+FFFD. Returns the number of
// replacements; 0 means `out` equals `in`.
size_t RepairUtf8(std::string_view in, std::string* out);

}  // namespace stepdoctor::chrome
