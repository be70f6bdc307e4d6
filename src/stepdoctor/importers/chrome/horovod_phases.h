// Horovod timelines (HOROVOD_TIMELINE=file.json): one Chrome "process" per tensor, each
// collective's life as nested B/E phases. Horovod streams the file and never closes the array, so
// a file that ends without `]` is the normal form. Rank-ready markers (the rank's number as the
// name) are instants inside NEGOTIATE_*.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/model/event_kind.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// Names only Horovod writes: one of them marks the file as a Horovod timeline.
bool IsHorovodOnlyName(std::string_view name);

// Kind of a Horovod phase:
//   NEGOTIATE_*                          waiting for every rank to be ready (kCollectiveWait)
//   ALLREDUCE, MPI_*, NCCL_*, GLOO_*, CCL_*,
//   MEMCPY_IN/OUT_FUSION_BUFFER, ...     moving the data (kCollective)
//   WAIT_FOR_DATA, WAIT_FOR_OTHER_TENSOR_DATA   waiting for the framework to produce it (kSync)
// Anything else keeps `fallback`.
EventKind HorovodPhaseKind(std::string_view name, EventKind fallback);

// A rank-ready marker: the name is a rank number.
bool IsHorovodRankMarker(std::string_view name);

// Reads a Horovod timeline's events as phases: each gets its HorovodPhaseKind, and rank-ready
// markers that carry a duration are made instants again (counted, with a note naming `source`).
void ReadHorovodPhases(Trace& trace, const std::vector<TimelineId>& timelines, const std::string& source);

}  // namespace stepdoctor::chrome
