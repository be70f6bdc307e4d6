// Whole-buffer gzip inflate with libdeflate: about twice zlib's speed, but it has no streaming
// API, so it needs the whole .gz in memory (a mapped file) and an output block as large as
// the result. The streaming zlib GzipSource stays the reference and the fallback: this path
// only ever succeeds on a well-formed file, and declines everything else (a cut or damaged
// .gz, trailing bytes, an ISIZE that lies, a result past the size cap) before producing
// anything, so the zlib path then gives exactly what it always gave.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "stepdoctor/io/mapped_file.h"

namespace stepdoctor {

// The largest result inflated whole (it is held in memory, then released as it is parsed);
// larger files stream through zlib.
inline constexpr size_t kWholeInflateMaxBytes = size_t(1) << 30;

struct WholeInflate {
  std::unique_ptr<MappedRegion> region;  // the inflated bytes; null when declined
  const char* declined = nullptr;        // why not (for tests and the benchmark)
};

// Inflates every member of `gz` (concatenated .gz files work). The first guess at the size is
// the last member's ISIZE trailer (the size mod 2^32), or 8x the compressed size where ISIZE
// cannot be the whole (several members, a result past 4 GiB); a short guess doubles the block
// and inflates that member again, up to `max_bytes`. A file past the cap thus costs up to
// `max_bytes` of inflate before it streams instead.
WholeInflate InflateGzipWhole(std::string_view gz, size_t max_bytes = kWholeInflateMaxBytes);

}  // namespace stepdoctor
