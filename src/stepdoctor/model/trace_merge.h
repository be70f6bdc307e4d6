// Moves one Trace into another: how files imported on separate threads become one Trace.
#pragma once

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Appends everything of `from` to `into`: workers, devices and timelines (renumbered, events in
// their order), counters, scalars, diagnostics and sources; names are re-interned into `into`.
// The formats read are joined ("chrome-json (kineto) + xplane (tensorflow)").
void MergeTrace(Trace& into, Trace&& from);

}  // namespace stepdoctor
