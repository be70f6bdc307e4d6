#include "stepdoctor/importers/chrome/json_value_scan.h"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stepdoctor::chrome {

size_t ScanValueResume(const char* data, size_t begin, size_t end, ValueScanState* st) {
  int depth = st->depth;
  bool in_string = st->in_string;
  bool escape = st->escape;
  size_t i = begin;
  if (!st->started && i < end) {
    // The first byte opens the value: a string is scanned at depth 0 and ends with its quote.
    st->started = true;
    if (data[i] == '"') in_string = true;
    else ++depth;
    ++i;
  }
#if defined(__SSE2__)
  // 16 bytes at a time: a mask of the bytes that can change state, handled in order.
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
  const __m128i ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
  const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
  while (i + 16 <= end) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    uint32_t quote_or_bs = static_cast<uint32_t>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs))));
    __m128i br = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, ob), _mm_cmpeq_epi8(v, cb)),
                              _mm_or_si128(_mm_cmpeq_epi8(v, os), _mm_cmpeq_epi8(v, cs)));
    uint32_t mask = quote_or_bs | static_cast<uint32_t>(_mm_movemask_epi8(br));
    if (escape) {  // the previous block (or piece) ended in a backslash inside a string
      mask &= ~1u;
      escape = false;
    }
    while (mask) {
      unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
      mask &= mask - 1;
      char c = data[i + k];
      if (in_string) {
        if (c == '\\') {
          if (k == 15) escape = true;
          else mask &= ~(1u << (k + 1));
        } else if (c == '"') {
          in_string = false;
          if (depth == 0) return i + k + 1;
        }
      } else {
        switch (c) {
          case '"': in_string = true; break;
          case '{': case '[': ++depth; break;
          case '}': case ']':
            if (--depth == 0) return i + k + 1;
            break;
          default: break;  // a backslash outside a string: invalid JSON, simdjson reports it
        }
      }
    }
    i += 16;
  }
#endif
  for (; i < end; ++i) {
    char c = data[i];
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  st->depth = depth;
  st->in_string = in_string;
  st->escape = escape;
  return kIncomplete;
}

size_t ScanValueEnd(const char* data, size_t begin, size_t end, bool at_eof) {
  if (begin >= end) return kIncomplete;
  char c = data[begin];
  if (c == '{' || c == '[' || c == '"') {
    ValueScanState st;
    return ScanValueResume(data, begin, end, &st);
  }
  for (size_t i = begin; i < end; ++i) {
    char d = data[i];
    if (d == ',' || d == ']' || d == '}' || IsJsonSpace(d)) return i;
  }
  return at_eof ? end : kIncomplete;
}

}  // namespace stepdoctor::chrome
