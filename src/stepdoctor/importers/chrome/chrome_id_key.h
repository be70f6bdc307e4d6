// The keys the Chrome trace builder files lanes under: a pid or tid as the trace wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace stepdoctor::chrome {

// A pid or tid: a number, or a string's index in State::string_texts. The flag keeps the two
// apart, so no number (however large) can stand for a string.
struct IdKey {
  int64_t v = 0;
  bool is_string = false;
  bool operator==(const IdKey& o) const { return v == o.v && is_string == o.is_string; }
  bool operator<(const IdKey& o) const { return is_string != o.is_string ? is_string < o.is_string : v < o.v; }
};

struct IdKeyHash {
  size_t operator()(const IdKey& k) const noexcept {
    return static_cast<size_t>(static_cast<uint64_t>(k.v) * 0x9E3779B97F4A7C15ull + k.is_string);
  }
};

struct PairHash {
  size_t operator()(const std::pair<IdKey, IdKey>& p) const noexcept {
    uint64_t h = IdKeyHash()(p.first);  // unsigned: wraps, no UB
    return static_cast<size_t>(h ^ (IdKeyHash()(p.second) + (h >> 29)));
  }
};

}  // namespace stepdoctor::chrome
