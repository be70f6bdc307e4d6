#include "stepdoctor/importers/tfevents/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define STEPDOCTOR_CRC_SSE42 1
#endif

namespace stepdoctor::tfevents {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // CRC-32C, reflected

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? kPoly : 0);
    t[0][i] = c;
  }
  for (int s = 1; s < 8; ++s)
    for (uint32_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  return t;
}

constexpr Tables kTables = MakeTables();

#ifdef STEPDOCTOR_CRC_SSE42
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(std::string_view data, uint32_t crc) {
  const char* p = data.data();
  size_t n = data.size();
  uint64_t c = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p));
  return ~c32;
}

bool HasSse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32cPortable(std::string_view data, uint32_t crc) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  uint32_t c = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);  // little-endian hosts only, as every machine that trains models
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
        kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xff];
  return ~c;
}

namespace {

constexpr uint32_t kPolyReflected = 0x82f63b78u;  // CRC-32C, bit-reversed

// a(x) * b(x) mod P(x), in the reflected bit order the CRC uses.
constexpr uint32_t MultModP(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = b & 1 ? (b >> 1) ^ kPolyReflected : b >> 1;
  }
  return p;
}

// x^(2^k) mod P(x) for k = 0..31.
struct X2nTable {
  uint32_t t[32];
  constexpr X2nTable() : t{} {
    uint32_t p = 1u << 30;  // x^1
    t[0] = p;
    for (int k = 1; k < 32; ++k) t[k] = p = MultModP(p, p);
  }
};
constexpr X2nTable kX2n;

}  // namespace

uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  // Appending len_b bytes multiplies A's CRC by x^(8 len_b): x^(2^k) for each set bit of 8 len_b.
  uint32_t p = 1u << 31;  // x^0
  for (unsigned k = 3; len_b; len_b >>= 1, ++k)
    if (len_b & 1) p = MultModP(kX2n.t[k & 31], p);
  return MultModP(p, crc_a) ^ crc_b;
}

uint32_t Crc32c(std::string_view data, uint32_t crc) {
#ifdef STEPDOCTOR_CRC_SSE42
  if (HasSse42()) return Crc32cSse42(data, crc);
#endif
  return Crc32cPortable(data, crc);
}

}  // namespace stepdoctor::tfevents
