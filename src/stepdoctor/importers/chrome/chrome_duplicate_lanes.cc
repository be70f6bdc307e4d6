#include "stepdoctor/importers/chrome/chrome_duplicate_lanes.h"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <unordered_map>

namespace stepdoctor::chrome {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

uint64_t LaneHash(const Timeline& t) {
  uint64_t h = uint64_t(t.kind) * 31 + t.ev.size();
  for (size_t i = 0; i < t.ev.size(); ++i)
    h = Mix(Mix(Mix(h, uint64_t(t.ev.start_ns[i])), uint64_t(t.ev.dur_ns[i])), (uint64_t(t.ev.name[i].v) << 8) | uint64_t(t.ev.kind[i]));
  return h;
}

bool SameEvents(const Timeline& a, const Timeline& b) {
  return a.kind == b.kind && a.worker == b.worker && a.ev.start_ns == b.ev.start_ns && a.ev.dur_ns == b.ev.dur_ns &&
         a.ev.name == b.ev.name && a.ev.kind == b.ev.kind;
}

}  // namespace

size_t DropDuplicateLanes(Trace& trace, const std::vector<LabelledLane>& lanes, const std::string& source) {
  size_t dropped = 0, events = 0;
  // First the lanes long enough that a repeat can only be a copy; once the file is known to hold
  // copies, its short lanes too (a thread that ran one op in each copy).
  for (size_t min_events : {kMinDuplicateLaneEvents, size_t(1)}) {
    if (min_events == 1 && dropped == 0) break;
    std::unordered_multimap<uint64_t, size_t> seen;  // hash -> index in lanes
    for (size_t k = 0; k < lanes.size(); ++k) {
      Timeline& t = trace.timeline(lanes[k].id);
      if (t.ev.size() < min_events) continue;
      const uint64_t h = Mix(LaneHash(t), std::hash<std::string>{}(lanes[k].label));
      bool dup = false;
      auto [lo, hi] = seen.equal_range(h);
      for (auto it = lo; it != hi && !dup; ++it)
        dup = lanes[it->second].label == lanes[k].label && SameEvents(trace.timeline(lanes[it->second].id), t);
      if (!dup) {
        seen.emplace(h, k);
        continue;
      }
      ++dropped;
      events += t.ev.size();
      t.ev = EventColumns{};
      t.args.clear();
    }
  }
  if (dropped > 0) {
    trace.diagnostics.Note(ImportIssue::kDuplicateLane,
                           fmt::format("{}: {} lane(s) repeat another lane event for event ({} events): each kept once",
                                       source, dropped, events));
    trace.diagnostics.Count(ImportIssue::kDuplicateLane, dropped - 1);
  }
  return dropped;
}

}  // namespace stepdoctor::chrome
