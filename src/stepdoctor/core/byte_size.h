// Sizes as users type them on the command line.
#pragma once

#include <cstdint>
#include <string>

#include "stepdoctor/core/result.h"

namespace stepdoctor {

// Parses "128MB", "64MiB", "1G", "4096" (bytes; K/M/G are powers of 1024).
Result<uint64_t> ParseByteSize(const std::string& text);

}  // namespace stepdoctor
