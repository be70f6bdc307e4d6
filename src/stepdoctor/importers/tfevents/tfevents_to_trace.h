// TensorBoard event files (`events.out.tfevents.*`, TF1 and TF2 `.v2`) -> Trace::scalars.
//
// Reads TFRecord-framed Event protos: TF1 `simple_value` scalars, TF2 rank-0 tensors (plugin
// "scalars"), and counts histograms. A damaged record is noted with its byte offset
// (kCorruptRecord) and the rest of the file is still read. The profiler's `.profile-empty`
// marker (one record, no summaries) is accepted quietly.
#pragma once

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Adds the scalars of one event file to `trace.scalars`, under run = the file's folder as
// named by `src.name()` (call NormalizeScalarRuns once all files are read). Returns an error
// only when the first record is unreadable (not an event file at all).
Status ImportTfEvents(ByteSource& src, Trace& trace);

// Rewrites scalar runs from folder paths to the folders relative to their common ancestor
// ("logs/train", "logs/validation" -> "train", "validation"); a single folder keeps its own
// name. REQUIRED: call once, after every event file is imported.
void NormalizeScalarRuns(Trace& trace);

}  // namespace stepdoctor
