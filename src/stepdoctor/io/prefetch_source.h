// Reads an inner source on a background thread, a few chunks ahead of the consumer, so that
// decompression (zlib) and parsing run on two cores at once. On one core it still works, just
// without the overlap.
#pragma once

#include <memory>

#include "stepdoctor/io/byte_source.h"

namespace stepdoctor {

// chunk_bytes: size of each read-ahead chunk; depth: chunks kept ready (memory: depth x chunk).
std::unique_ptr<ByteSource> PrefetchSource(std::unique_ptr<ByteSource> inner, size_t chunk_bytes = 4u << 20,
                                           int depth = 3);

}  // namespace stepdoctor
