// int64 id -> value for one plane's metadata: profilers number metadata 1, 2, 3 ... so ids
// below kDenseLimit sit in a vector (an event's metadata and stats are found by indexing, not
// hashing); any other id falls back to a hash map. Cleared per plane, keeping its capacity.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace stepdoctor::xplane {

template <typename T>
class IdMap {
 public:
  static constexpr int64_t kDenseLimit = 1 << 16;

  void Clear() {
    dense_.clear();
    has_.clear();
    sparse_.clear();
  }
  T* Find(int64_t id) { return const_cast<T*>(static_cast<const IdMap*>(this)->Find(id)); }
  const T* Find(int64_t id) const {
    if (id >= 0 && id < kDenseLimit) {
      size_t i = static_cast<size_t>(id);
      return i < has_.size() && has_[i] ? &dense_[i] : nullptr;
    }
    auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  // The value of `id`, default-made if it had none.
  T& Put(int64_t id) {
    if (id >= 0 && id < kDenseLimit) {
      size_t i = static_cast<size_t>(id);
      if (i >= has_.size()) {
        has_.resize(i + 1, 0);
        dense_.resize(i + 1);
      }
      if (!has_[i]) {
        has_[i] = 1;
        dense_[i] = T{};
      }
      return dense_[i];
    }
    return sparse_[id];
  }

 private:
  std::vector<T> dense_;
  std::vector<uint8_t> has_;
  std::unordered_map<int64_t, T> sparse_;
};

}  // namespace stepdoctor::xplane
