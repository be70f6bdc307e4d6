// Chrome-trace flow events (Kineto's ac2g launch arrows, Catapult's s/t/f) bound to the slices
// they point at, so launch/kernel pairs share a correlation id where the events carry none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

struct Flow {
  int64_t id;
  char ph;
  bool bind_enclosing;  // 's' and bp:"e" bind to the enclosing slice; else the next slice
  TimelineId timeline;
  int64_t ts;
};

// The first index of sorted `st` whose value is past `ts` (upper) or at or past it (lower): the
// answer of std::upper_bound / std::lower_bound, searched outwards from `hint`. A file's flows
// on one timeline come mostly in time order, so the answer usually lies a step or two from the
// last one, where a search of the whole column would touch cold memory each time.
size_t BoundNear(const std::vector<int64_t>& st, int64_t ts, bool upper, size_t hint);

// Gives each flow's target slice the flow id as its correlation id, where it has none.
// REQUIRED: the trace is finalised (timelines sorted by start).
void BindFlows(Trace& trace, const std::vector<Flow>& flows);

}  // namespace stepdoctor::chrome
