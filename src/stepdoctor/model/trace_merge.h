// Moves one Trace into another: how files imported on separate threads become one Trace.
#pragma once

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Appends everything of `from` to `into`: workers, devices and timelines (renumbered, events in
// their order), counters, scalars, diagnostics and sources; names are re-interned into `into`.
// The formats read are joined ("chrome-json (kineto) + xplane (tensorflow)").
void MergeTrace(Trace& into, Trace&& from);

// Appends a later capture of the same process to `into`, every time moved by `shift_ns`: each
// worker of `from` becomes `into`'s first worker, each of its lines joins the line of `into`
// with the same device, kind, id and name (else is added), each counter the series of the same
// name and device. Sources and diagnostics are appended. REQUIRED: `into` has a worker; its
// lines are out of order until `into` is finalized again.
void AppendCapture(Trace& into, Trace&& from, int64_t shift_ns);

}  // namespace stepdoctor
