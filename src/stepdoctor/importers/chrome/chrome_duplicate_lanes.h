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

// One file's lane and its label (process and thread names as the file gives them).
struct LabelledLane {
  TimelineId id;
  std::string label;
};
// Empties each lane of `lanes` that repeats an earlier one with the same label, worker and
// events (at least kMinDuplicateLaneEvents of them; once copies are found, shorter lanes too);
// notes and counts them. Lanes of other names are never copies, however alike (TF1's
// "stream:all" holds the same kernels as a lone "stream:20"). Returns how many.
inline constexpr size_t kMinDuplicateLaneEvents = 3;
size_t DropDuplicateLanes(Trace& trace, const std::vector<LabelledLane>& lanes, const std::string& source);

}  // namespace stepdoctor::chrome
