// What the Chrome builder does to one file's timelines once the file is read: ranges left open
// are closed, a file that counts time from its own start is moved onto the wall clock, and a
// worker the file does not name is named after the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/importers/chrome/chrome_flows.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// The worker's name where the trace names no host: the file's name up to its first '.'
// ("worker0.1623143566756.pt.trace.json" -> "worker0").
std::string HostFromFileName(std::string_view source);

// Closes the B events at `open_b` (never ended) at the end of their thread's activity: the latest
// start or end on `t` (timestamps may be negative, so there is no zero to start from).
void CloseOpenRanges(Timeline& t, const std::vector<uint32_t>& open_b);

// smdebug's files each count time from their own start (start_time_since_epoch_in_micros):
// moved by `epoch_ns` onto the wall clock (the file's `timelines`, its `flows` and `worker`'s
// counters), the files one process writes (model, Python and Horovod timelines) line up and
// join_captures can join them. Left as they are, with a note naming `source`, where a moved time
// would leave the range. Nothing where `epoch_ns` is 0.
void ShiftFileToEpoch(Trace& trace, const std::vector<TimelineId>& timelines, std::vector<Flow>* flows,
                      WorkerId worker, int64_t epoch_ns, std::string_view source);

}  // namespace stepdoctor::chrome
