// One XStat as both decoders hand it to the converter: its metadata id and the value its oneof
// holds (unset, or the last member the bytes set).
#pragma once

#include <cstdint>
#include <string_view>

namespace stepdoctor::xplane {

enum class StatCase : uint8_t { kNone, kDouble, kUint64, kInt64, kStr, kBytes, kRef };

struct StatView {
  int64_t metadata_id = 0;
  StatCase value_case = StatCase::kNone;
  double d = 0;        // kDouble
  uint64_t u = 0;      // kUint64, kRef (an XStatMetadata id)
  int64_t i = 0;       // kInt64
  std::string_view s;  // kStr, kBytes; valid while the plane's bytes or message are
};

}  // namespace stepdoctor::xplane
