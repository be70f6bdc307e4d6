// Chrome-trace flow events (Kineto's ac2g launch arrows, Catapult's s/t/f) bound to the slices
// they point at, so launch/kernel pairs share a correlation id where the events carry none.
#pragma once

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

// Gives each flow's target slice the flow id as its correlation id, where it has none.
// REQUIRED: the trace is finalised (timelines sorted by start).
void BindFlows(Trace& trace, const std::vector<Flow>& flows);

}  // namespace stepdoctor::chrome
