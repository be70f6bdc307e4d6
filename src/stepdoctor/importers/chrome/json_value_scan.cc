#include "stepdoctor/importers/chrome/json_value_scan.h"

#include <cstdint>
#include <string_view>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stepdoctor::chrome {
namespace {

#if defined(__SSE2__)
struct BlockMasks {
  uint64_t quote, backslash, open, close;  // bit k: byte k of the block is '"', '\\', '{' or '[', '}' or ']'
};

BlockMasks Masks64(const char* p) {
  // '{' and '[' differ only in bit 0x20, as do '}' and ']': one compare finds each pair.
  BlockMasks m{0, 0, 0, 0};
#if defined(__AVX2__)
  const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\');
  const __m256i case_bit = _mm256_set1_epi8(0x20), ob = _mm256_set1_epi8('{'), cb = _mm256_set1_epi8('}');
  for (int j = 0; j < 2; ++j) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * j));
    const __m256i folded = _mm256_or_si256(v, case_bit);
    const int shift = 32 * j;
    m.quote |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, q)))) << shift;
    m.backslash |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, bs)))) << shift;
    m.open |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, ob)))) << shift;
    m.close |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, cb)))) << shift;
  }
#else
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
  const __m128i case_bit = _mm_set1_epi8(0x20), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
  for (int j = 0; j < 4; ++j) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * j));
    const __m128i folded = _mm_or_si128(v, case_bit);
    const int shift = 16 * j;
    m.quote |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << shift;
    m.backslash |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
    m.open |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, ob)))) << shift;
    m.close |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, cb)))) << shift;
  }
#endif
  return m;
}

// Bit k of the result is the parity of bits 0..k of x: set from an opening quote up to (not
// including) the closing one.
uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}
#endif

}  // namespace

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
  // 64 bytes at a time, as masks of quotes, backslashes and brackets. Where a block has no
  // backslash (nearly every block of a trace), the quotes alone say which bytes lie inside
  // strings, and only the brackets outside them move the depth: a block whose closing brackets
  // cannot bring the depth to zero is passed by counting bits.
  while (i + 64 <= end) {
    // This scan is the first to read a mapped file's bytes; asking for them 1 KB ahead keeps it
    // from waiting on memory at each page (the tokenizer alone: 20-35% faster on the bench shapes).
    __builtin_prefetch(data + i + 1024);
    const BlockMasks m = Masks64(data + i);
    if (m.backslash == 0 && !escape && depth > 0) {
      const uint64_t inside = PrefixXor(m.quote) ^ (in_string ? ~uint64_t(0) : 0);
      const uint64_t open = m.open & ~inside, close = m.close & ~inside;
      in_string = (inside >> 63) != 0;
      if (__builtin_popcountll(close) < depth) {
        depth += __builtin_popcountll(open) - __builtin_popcountll(close);
      } else {
        for (uint64_t b = open | close; b; b &= b - 1) {
          const unsigned k = static_cast<unsigned>(__builtin_ctzll(b));
          if (open >> k & 1) {
            ++depth;
          } else if (--depth == 0) {
            return i + k + 1;
          }
        }
      }
      i += 64;
      continue;
    }
    // Backslashes, or a string value at depth 0: each byte that can change state, in order.
    uint64_t mask = m.quote | m.backslash | m.open | m.close;
    if (escape) {  // the previous block (or piece) ended in a backslash inside a string
      mask &= ~uint64_t(1);
      escape = false;
    }
    while (mask) {
      unsigned k = static_cast<unsigned>(__builtin_ctzll(mask));
      mask &= mask - 1;
      char c = data[i + k];
      if (in_string) {
        if (c == '\\') {
          if (k == 63) escape = true;
          else mask &= ~(uint64_t(1) << (k + 1));
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
    i += 64;
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

namespace {

// Walks the object starting at data[p] ('{'), appending to *out from *copied on; values over
// `max` that are not strings become null, and the "args" object of an event (depth 0) is walked
// the same way. Returns one past the object, or kIncomplete where the structure is not followed.
size_t SlimObject(const char* data, size_t p, size_t n, size_t max, int depth, size_t* copied, std::string* out,
                  size_t* replaced) {
  ++p;  // '{'
  for (;;) {
    while (p < n && (IsJsonSpace(data[p]) || data[p] == ',')) ++p;
    if (p >= n) return kIncomplete;
    if (data[p] == '}') return p + 1;
    if (data[p] != '"') return kIncomplete;
    const size_t key_end = ScanValueEnd(data, p, n, true);
    if (key_end == kIncomplete || key_end <= p) return kIncomplete;
    const bool is_args = depth == 0 && key_end - p == 6 && std::string_view(data + p, 6) == "\"args\"";
    p = key_end;
    while (p < n && IsJsonSpace(data[p])) ++p;
    if (p >= n || data[p] != ':') return kIncomplete;
    ++p;
    while (p < n && IsJsonSpace(data[p])) ++p;
    if (p >= n) return kIncomplete;
    size_t value_end;
    if (is_args && data[p] == '{') {
      value_end = SlimObject(data, p, n, max, depth + 1, copied, out, replaced);
    } else {
      value_end = ScanValueEnd(data, p, n, true);
      if (value_end != kIncomplete && value_end > p && value_end - p > max && data[p] != '"') {
        out->append(data + *copied, p - *copied);
        out->append("null");
        *copied = value_end;
        ++*replaced;
      }
    }
    if (value_end == kIncomplete || value_end <= p) return kIncomplete;
    p = value_end;
  }
}

}  // namespace

size_t CopyWithoutLargeValues(const char* data, size_t n, size_t max_bytes, std::string* out) {
  size_t p = 0;
  while (p < n && IsJsonSpace(data[p])) ++p;
  if (p >= n || data[p] != '{') return 0;
  std::string copy;
  size_t copied = 0, replaced = 0;
  const size_t end = SlimObject(data, p, n, max_bytes, 0, &copied, &copy, &replaced);
  if (end == kIncomplete || replaced == 0) return 0;
  copy.append(data + copied, n - copied);
  *out = std::move(copy);
  return replaced;
}

}  // namespace stepdoctor::chrome
