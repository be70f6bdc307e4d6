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

// The largest result inflated whole; larger files stream through zlib. Whole, peak RSS is the
// inflated size plus the .gz (about 1.05x the JSON; its pages are then handed back as the import
// passes them); streaming it is about 0.3x. Measured (docs/performance.md): whole is about 1.5x
// faster end to end, so it is worth up to this much memory, not more.
inline constexpr size_t kWholeInflateMaxBytes = size_t(256) << 20;

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
