#include "stepdoctor/io/whole_gzip.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstdint>

namespace stepdoctor {
namespace {

constexpr uint64_t kMaxDeflateRatio = 1032;  // DEFLATE cannot expand its input more than this
constexpr size_t kMinGzipMember = 18;        // 10-byte header, an empty block, 8-byte trailer
constexpr uint64_t kGuessRatio = 8;          // first output guess where ISIZE cannot be used: trace
                                             // JSON inflates to 5-20x its .gz

bool IsGzipMember(std::string_view s) {
  return s.size() >= kMinGzipMember && uint8_t(s[0]) == 0x1f && uint8_t(s[1]) == 0x8b && uint8_t(s[2]) == 8;
}

struct Decompressor {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  ~Decompressor() {
    if (d) libdeflate_free_decompressor(d);
  }
};

}  // namespace

WholeInflate InflateGzipWhole(std::string_view gz, size_t max_bytes) {
  WholeInflate out;
  if (!IsGzipMember(gz)) {
    out.declined = "not a gzip member";
    return out;
  }
  // ISIZE (the last 4 bytes) is the last member's size mod 2^32. One member under 4 GiB never
  // inflates to less than about its compressed size, so an ISIZE below half of that means
  // several members (the last a small one) or a result past 4 GiB: guess a few times the
  // compressed size instead and let the block grow.
  const uint8_t* t = reinterpret_cast<const uint8_t*>(gz.data() + gz.size() - 4);
  uint64_t guess = uint64_t(t[0]) | uint64_t(t[1]) << 8 | uint64_t(t[2]) << 16 | uint64_t(t[3]) << 24;
  if (guess > uint64_t(gz.size()) * kMaxDeflateRatio + (1u << 20)) {
    out.declined = "ISIZE larger than DEFLATE can expand to";
    return out;
  }
  if (guess < gz.size() / 2) guess = std::min<uint64_t>(uint64_t(gz.size()) * kGuessRatio, max_bytes);
  if (guess > max_bytes) {
    out.declined = "larger than the whole-inflate cap";
    return out;
  }
  Decompressor dec;
  if (!dec.d) {
    out.declined = "no memory for a decompressor";
    return out;
  }
  auto region = MappedRegion::Anonymous(std::max<size_t>(size_t(guess), 1));
  if (!region) {
    out.declined = "no address space for the output";
    return out;
  }
  size_t in_pos = 0, out_pos = 0;
  while (in_pos < gz.size()) {
    std::string_view rest = gz.substr(in_pos);
    if (!IsGzipMember(rest)) {
      out.declined = "bytes after the last member";  // zlib counts them as damage
      return out;
    }
    size_t used_in = 0, produced = 0;
    libdeflate_result rc = libdeflate_gzip_decompress_ex(dec.d, rest.data(), rest.size(), region->data() + out_pos,
                                                         region->size() - out_pos, &used_in, &produced);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      size_t grown = std::max(region->size() * 2, region->size() + (1u << 20));
      if (region->size() >= max_bytes || !region->Resize(std::min(grown, max_bytes))) {
        out.declined = "larger than the whole-inflate cap";
        return out;
      }
      continue;  // inflate this member again into the larger block
    }
    if (rc != LIBDEFLATE_SUCCESS) {
      out.declined = "damaged or truncated";
      return out;
    }
    in_pos += used_in;
    out_pos += produced;
  }
  if (out_pos != region->size() && !region->Resize(out_pos)) {
    out.declined = "could not trim the output";
    return out;
  }
  out.region = std::move(region);
  return out;
}

}  // namespace stepdoctor
