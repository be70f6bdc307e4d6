#include "stepdoctor/importers/chrome/utf8_repair.h"

#include <cstdint>

namespace stepdoctor::chrome {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid; *consumed is then the
// length of the maximal invalid subpart to replace (at least 1).
size_t ValidSequence(std::string_view s, size_t i, size_t* consumed) {
  auto at = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t b = at(i);
  *consumed = 1;
  if (b < 0x80) return 1;
  size_t n;
  uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) n = 2;
  else if (b == 0xE0) n = 3, lo = 0xA0;            // no overlong 3-byte forms
  else if (b == 0xED) n = 3, hi = 0x9F;            // no UTF-16 surrogates
  else if (b >= 0xE1 && b <= 0xEF) n = 3;
  else if (b == 0xF0) n = 4, lo = 0x90;            // no overlong 4-byte forms
  else if (b == 0xF4) n = 4, hi = 0x8F;            // nothing past U+10FFFF
  else if (b >= 0xF1 && b <= 0xF3) n = 4;
  else return 0;                                    // a stray continuation byte, C0, C1, F5..FF
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    uint8_t c = at(i + k);
    uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (c < l || c > h) return 0;
    *consumed = k + 1;  // the bytes so far were a valid prefix: one replacement covers them
  }
  return n;
}

}  // namespace

size_t RepairUtf8(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size() + 16);
  size_t replaced = 0;
  for (size_t i = 0; i < in.size();) {
    size_t consumed;
    size_t n = ValidSequence(in, i, &consumed);
    if (n) {
      out->append(in.data() + i, n);
      i += n;
    } else {
      out->append("\xEF\xBF\xBD");
      ++replaced;
      i += consumed;
    }
  }
  return replaced;
}

}  // namespace stepdoctor::chrome
