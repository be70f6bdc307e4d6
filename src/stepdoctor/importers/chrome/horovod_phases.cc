#include "stepdoctor/importers/chrome/horovod_phases.h"

#include <utility>

namespace stepdoctor::chrome {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

bool IsHorovodOnlyName(std::string_view n) {
  if (n.empty()) return false;
  switch (n[0]) {
    case 'N': return StartsWith(n, "NEGOTIATE_");
    case 'M': return StartsWith(n, "MEMCPY_IN_FUSION_BUFFER") || StartsWith(n, "MEMCPY_OUT_FUSION_BUFFER");
    case 'C': return n == "CYCLE_START";
    case 'W': return n == "WAIT_FOR_DATA" || n == "WAIT_FOR_OTHER_TENSOR_DATA";
    case 'I': return n == "INIT_FUSION_BUFFER";
    default: return false;
  }
}

EventKind HorovodPhaseKind(std::string_view n, EventKind fallback) {
  if (StartsWith(n, "NEGOTIATE_")) return EventKind::kCollectiveWait;
  if (n == "WAIT_FOR_DATA" || n == "WAIT_FOR_OTHER_TENSOR_DATA") return EventKind::kSync;
  // Allocating the fusion buffer happens inside the operation, before its first fused copy.
  if (n == "INIT_FUSION_BUFFER") return EventKind::kCollective;
  for (std::string_view p : {"MPI_", "NCCL_", "GLOO_", "CCL_", "MEMCPY_IN_", "MEMCPY_OUT_", "ADASUM_"})
    if (StartsWith(n, p)) return EventKind::kCollective;
  // The enclosing phase of each operation ("ALLREDUCE", "ALLGATHER", "BROADCAST", ...).
  for (std::string_view op : {"ALLREDUCE", "ALLGATHER", "BROADCAST", "ALLTOALL", "REDUCESCATTER", "ADASUM"})
    if (n == op) return EventKind::kCollective;
  if (n == "CYCLE_START" || n == "QUEUE" || IsHorovodRankMarker(n)) return EventKind::kOther;
  return fallback;
}

bool IsHorovodRankMarker(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (c < '0' || c > '9') return false;
  return true;
}

void ReadHorovodPhases(Trace& trace, const std::vector<TimelineId>& timelines, const std::string& source) {
  uint64_t repaired = 0;
  // Each name's phase kind (kCount_: the event keeps its own) and whether it is a rank marker,
  // worked out once per name: a timeline repeats a few names thousands of times.
  constexpr uint8_t kUnseen = 0, kMarker = 1, kNotMarker = 2;
  std::vector<std::pair<EventKind, uint8_t>> by_name(trace.strings.size(), {EventKind::kCount_, kUnseen});
  for (TimelineId id : timelines) {
    Timeline& t = trace.timeline(id);
    for (size_t i = 0; i < t.ev.size(); ++i) {
      auto& memo = by_name[t.ev.name[i].v];
      if (memo.second == kUnseen) {
        std::string_view n = trace.str(t.ev.name[i]);
        memo = {HorovodPhaseKind(n, EventKind::kCount_), IsHorovodRankMarker(n) ? kMarker : kNotMarker};
      }
      if (memo.first != EventKind::kCount_) t.ev.kind[i] = memo.first;
      // Horovod writes rank-ready markers with dur 0; a converter that filled in a duration
      // (smdebug's copies run for days) must not stretch the window.
      if (memo.second == kMarker && t.ev.dur_ns[i] != 0) {
        t.ev.dur_ns[i] = 0;
        ++repaired;
      }
    }
    // Horovod opens a phase per tensor and closes it with an E; a B still open here was cut by the
    // end of the file, and is closed in Finish with the rest.
  }
  if (repaired) {
    trace.diagnostics.Count(ImportIssue::kInstantWithDuration, repaired - 1);  // the note counts the last one
    trace.diagnostics.Note(ImportIssue::kInstantWithDuration,
                           source + ": " + std::to_string(repaired) + " Horovod rank-ready markers carried a duration; read as instants");
  }
}

}  // namespace stepdoctor::chrome
