#include "stepdoctor/importers/chrome/json_value_scan.h"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stepdoctor::chrome {
namespace {

// Scans a container (object or array) starting at data[begin] == '{' or '['.
size_t ScanContainer(const char* data, size_t begin, size_t end) {
  int depth = 0;
  bool in_string = false;
  size_t i = begin;
#if defined(__SSE2__)
  // 16 bytes at a time: a mask of the bytes that can change state, handled in order.
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
  const __m128i ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
  const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
  bool skip_first = false;  // the previous block ended in a backslash inside a string
  while (i + 16 <= end) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    uint32_t quote_or_bs = static_cast<uint32_t>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs))));
    __m128i br = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, ob), _mm_cmpeq_epi8(v, cb)),
                              _mm_or_si128(_mm_cmpeq_epi8(v, os), _mm_cmpeq_epi8(v, cs)));
    uint32_t mask = quote_or_bs | static_cast<uint32_t>(_mm_movemask_epi8(br));
    if (skip_first) {
      mask &= ~1u;
      skip_first = false;
    }
    while (mask) {
      unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
      mask &= mask - 1;
      char c = data[i + k];
      if (in_string) {
        if (c == '\\') {
          if (k == 15) skip_first = true;
          else mask &= ~(1u << (k + 1));
        } else if (c == '"') {
          in_string = false;
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
  if (skip_first) ++i;  // the escaped byte is the first of the tail
#endif
  for (; i < end; ++i) {
    char c = data[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return kIncomplete;
}

}  // namespace

size_t ScanValueEnd(const char* data, size_t begin, size_t end, bool at_eof) {
  if (begin >= end) return kIncomplete;
  char c = data[begin];
  if (c == '{' || c == '[') return ScanContainer(data, begin, end);
  if (c == '"') {
    for (size_t i = begin + 1; i < end; ++i) {
      if (data[i] == '\\') ++i;
      else if (data[i] == '"') return i + 1;
    }
    return kIncomplete;
  }
  for (size_t i = begin; i < end; ++i) {
    char d = data[i];
    if (d == ',' || d == ']' || d == '}' || IsJsonSpace(d)) return i;
  }
  return at_eof ? end : kIncomplete;
}

}  // namespace stepdoctor::chrome
