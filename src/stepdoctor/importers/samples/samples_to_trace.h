// JSON-lines resource samples -> Trace::counters: stepdoctor's own samples files (written by
// `run`/`watch`, docs/samples-format.md), SageMaker Debugger system-monitor files
// ({"Type":"cpu","Name":"cpu5","Dimension":"CPUUtilization","Value":1.36,"Timestamp":...}) and
// W&B system metrics (wandb-events.jsonl, wandb_events_to_trace.h).
// Each file becomes one worker (its host) with a host-CPU device and one device per GPU.
#pragma once

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Reads any of the three dialects, told apart by the first line; a W&B metric history
// (wandb-history.jsonl) is refused with kUnknownFormat. Lines that are not JSON objects, lack a
// timestamp or hold non-numeric values are counted in trace.diagnostics and skipped.
Status ImportSamplesJsonLines(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
