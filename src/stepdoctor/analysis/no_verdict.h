// Inputs that name no bottleneck: the report's first line says why (event files without a
// profile, GPU samples too few or a job that held the GPU in too few of them) and what to record.
#pragma once

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// REQUIRED: r->verdict names no bottleneck. Rewrites its summary where one of those cases holds.
void SayWhyNoVerdict(const Trace& trace, const ResourceSignals* resources, Report* r);

// A Horovod timeline of its start-up broadcast alone (HorovodStartupBroadcastsOnly): no training
// step is in it, so no finding is more than low, the confidence is low and the verdict says what
// the window holds. REQUIRED: the worker's window is one region (no steps found).
void SayWhenOnlyHorovodStartup(const Trace& trace, WorkerId worker, Report* r);

}  // namespace stepdoctor
