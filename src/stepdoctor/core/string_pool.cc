#include "stepdoctor/core/string_pool.h"

#include <cstring>

namespace stepdoctor {
namespace {
constexpr size_t kChunkBytes = 1 << 20;
}

size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  // FNV-1a over 8-byte words: names are short and this is on the import hot path.
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
  return static_cast<size_t>(h ^ (h >> 32));
}

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view(), 0);
}

StringId StringPool::Find(std::string_view s, bool* found) const {
  auto it = index_.find(s);
  if (found) *found = it != index_.end();
  return it == index_.end() ? StringId{0} : StringId{it->second};
}

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return StringId{it->second};
  std::string_view stored;
  if (s.size() > kChunkBytes / 4) {
    stored = chunks_.emplace_back(s);  // big strings get their own chunk
  } else {
    if (open_ == nullptr || chunk_used_ + s.size() > open_->size()) {
      open_ = &chunks_.emplace_back(kChunkBytes, '\0');
      chunk_used_ = 0;
    }
    char* dst = open_->data() + chunk_used_;
    std::memcpy(dst, s.data(), s.size());
    chunk_used_ += s.size();
    stored = std::string_view(dst, s.size());
  }
  uint32_t id = static_cast<uint32_t>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return StringId{id};
}

}  // namespace stepdoctor
