// PyTorch's memory timeline (torch.profiler.profile(profile_memory=True, record_shapes=True,
// with_stack=True), then prof.export_memory_timeline(path, device)) -> Trace::counters: one
// series a category of tensor (model/series_names.h MemoryCategory), the bytes it holds on the
// exported device over time. Two forms, told apart by their shape:
//   raw (a path ending .raw.json[.gz]): [[t_ns, action, bytes, category], ...], one entry per
//     tensor event: action 1 pre-existing (t is -1: held before the profiler started), 2 created,
//     3 a new version (the old version's bytes leave its category, the new one's join), 4
//     destroyed; bytes are negative where they leave; category 0-7 in MemoryCategory's order.
//   coalesced (.json[.gz]): [[t, ...], [[0, bytes by category 0-7], ...]]: the state after each
//     time, in microseconds (later releases) or nanoseconds (earlier ones: told by their size).
// The file names no device: the series belong to a worker of their own, device unknown.
#pragma once

#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Whether the first bytes open a memory timeline: an array whose first element is an array
// of numbers (a Chrome trace's bare array holds objects).
bool LooksLikeMemoryTimeline(std::string_view head);

// Appends a worker named after the file, its category series and what was skipped (entries
// that are not four numbers, actions or categories out of range) to `trace`. A file cut short
// keeps what came before the cut (kTruncatedInput).
Status ImportMemoryTimeline(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
