#include "stepdoctor/importers/chrome/horovod_phases.h"

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

}  // namespace stepdoctor::chrome
