// CRC-32C (Castagnoli), the checksum TFRecord framing uses, and TFRecord's masking of it.
// Uses the SSE4.2 crc32 instruction where the CPU has it, else a table (slicing by 8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stepdoctor::tfevents {

// CRC-32C of `data`, continuing from `crc` (0 to start).
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);
// The portable version, always (for tests comparing the two).
uint32_t Crc32cPortable(std::string_view data, uint32_t crc = 0);
// The CRC-32C of A followed by B, from crc_a = Crc32c(A), crc_b = Crc32c(B) and B's length, in
// O(log len_b) without reading B again (zlib's crc32_combine, for the Castagnoli polynomial).
uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

// TFRecord stores CRCs masked, so that a CRC of data holding CRCs is not degenerate.
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace stepdoctor::tfevents
