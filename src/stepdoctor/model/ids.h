// Typed ids for the trace model, so a worker index is never passed where a timeline is meant.
#pragma once

#include <cstdint>
#include <limits>

namespace stepdoctor {

template <typename Tag>
struct TypedId {
  static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
  uint32_t v = kInvalid;
  bool valid() const { return v != kInvalid; }
  friend bool operator==(TypedId a, TypedId b) { return a.v == b.v; }
  friend bool operator!=(TypedId a, TypedId b) { return a.v != b.v; }
  friend bool operator<(TypedId a, TypedId b) { return a.v < b.v; }
};

using WorkerId = TypedId<struct WorkerTag>;
using DeviceId = TypedId<struct DeviceTag>;
using TimelineId = TypedId<struct TimelineTag>;

}  // namespace stepdoctor
