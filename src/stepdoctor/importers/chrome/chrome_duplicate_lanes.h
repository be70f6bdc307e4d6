// Lanes written twice: a timeline whose events are the same as another lane's of the same worker,
// event for event (names, kinds, starts and durations), is one lane recorded again (a TF1
// timeline built from step stats merged with themselves holds each device's lanes several times
// over, under new process ids). Kept, every copy would count its operators again: per-operator
// totals several times over, shares past 100%. The copies are emptied and counted.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// Empties each timeline of `timelines` (one file's) that repeats an earlier one of the same
// worker with at least kMinDuplicateLaneEvents events; notes and counts them. Returns how many.
inline constexpr size_t kMinDuplicateLaneEvents = 3;
size_t DropDuplicateLanes(Trace& trace, const std::vector<TimelineId>& timelines, const std::string& source);

}  // namespace stepdoctor::chrome
