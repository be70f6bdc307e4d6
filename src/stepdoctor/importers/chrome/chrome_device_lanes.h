// Device lanes recognised by what they hold, for tracers that write neither categories nor
// process names (custom CUPTI or ROCtracer dumps: a bare array of copies and kernels, each with a
// correlation id). Decided per lane, never per event: one host operator whose name mentions a
// kernel leaves its thread a host thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// A lane is device work when at least this share of its spans (events with a duration) are named
// like device work (IsDeviceWorkShapedName): a few profiler markers may sit among them.
inline constexpr double kDeviceShapedLaneMinShare = 0.9;
// ... and at least this share of those carry a correlation id: CUPTI and ROCtracer give every
// activity record one, to tie it to the host call that issued it.
inline constexpr double kDeviceShapedLaneMinCorrelatedShare = 0.5;
// ... and it holds at least this many such spans: fewer are not evidence enough for a lane.
inline constexpr size_t kDeviceShapedLaneMinSpans = 3;

struct DeviceShapedCounts {
  size_t spans = 0;       // events with a duration
  size_t shaped = 0;      // of those, named like device work
  size_t correlated = 0;  // of the shaped ones, with a correlation id
};
DeviceShapedCounts CountDeviceShapedSpans(const Trace& trace, const Timeline& t);
bool IsDeviceShapedLane(const DeviceShapedCounts& c);

// What the metadata says of the lane. A lane with a category on any event, a process name or
// label, or a thread name other than a stream's is described already and is never claimed.
struct LaneDescription {
  bool any_category = false;
  std::string_view process_name, process_label, thread_name;
};

// Claims `t` as a device stream when its description is silent and its events are device work:
// re-kinds its spans by name (copies, memsets, collectives, kernels) and returns true. Else leaves
// it alone and returns false. REQUIRED: called on a lane no other rule made a device's.
bool ClaimDeviceShapedLane(Trace& trace, Timeline& t, const LaneDescription& d);

}  // namespace stepdoctor::chrome
