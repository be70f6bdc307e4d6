#include "stepdoctor/importers/chrome/chrome_file_fixups.h"

#include <algorithm>
#include <limits>
#include <string>

#include "stepdoctor/core/checked_time.h"

namespace stepdoctor::chrome {

std::string HostFromFileName(std::string_view base) {
  if (auto slash = base.find_last_of('/'); slash != std::string_view::npos) base = base.substr(slash + 1);
  return std::string(base.substr(0, base.find('.')));
}

void CloseOpenRanges(Timeline& t, const std::vector<uint32_t>& open_b) {
  int64_t last = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < t.ev.size(); ++i) last = std::max(last, t.ev.start_ns[i] + t.ev.dur_ns[i]);
  for (uint32_t idx : open_b) t.ev.dur_ns[idx] = std::max<int64_t>(0, last - t.ev.start_ns[idx]);
}

void ShiftFileToEpoch(Trace& trace, const std::vector<TimelineId>& timelines, std::vector<Flow>* flows,
                      WorkerId worker, int64_t epoch_ns, std::string_view source) {
  if (epoch_ns == 0) return;
  for (TimelineId id : timelines) {
    const Timeline& t = trace.timeline(id);
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (!AddToTime(t.ev.start_ns[i], epoch_ns) || !AddToTime(t.end_ns(uint32_t(i)), epoch_ns)) {
        trace.diagnostics.Note(ImportIssue::kTimeOutOfRange,
                               std::string(source) +
                                   ": start_time_since_epoch_in_micros would move times out of range; not applied");
        return;
      }
  }
  for (TimelineId id : timelines)
    for (auto& v : trace.timeline(id).ev.start_ns) v += epoch_ns;
  for (auto& f : *flows) f.ts = AddToTime(f.ts, epoch_ns).value_or(f.ts);
  for (auto& c : trace.counters)
    if (c.worker == worker)
      for (auto& v : c.ts_ns) v = AddToTime(v, epoch_ns).value_or(v);
}

}  // namespace stepdoctor::chrome
