// Interned strings: every name in a Trace is stored once and referred to by a StringId.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stepdoctor {

struct StringId {
  uint32_t v = 0;  // 0 is the empty string
  friend bool operator==(StringId a, StringId b) { return a.v == b.v; }
  friend bool operator!=(StringId a, StringId b) { return a.v != b.v; }
  friend bool operator<(StringId a, StringId b) { return a.v < b.v; }
};

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view s);
  // Returns the id if already interned, or StringId{0} with found=false.
  StringId Find(std::string_view s, bool* found = nullptr) const;
  std::string_view Get(StringId id) const { return views_[id.v]; }
  size_t size() const { return views_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept;
  };
  // Chunked storage so string_views stay valid as the pool grows.
  std::deque<std::string> chunks_;
  std::string* open_ = nullptr;  // the chunk small strings are appended to
  size_t chunk_used_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, uint32_t, Hash, std::equal_to<>> index_;
};

}  // namespace stepdoctor

template <>
struct std::hash<stepdoctor::StringId> {
  size_t operator()(stepdoctor::StringId id) const noexcept { return id.v; }
};
