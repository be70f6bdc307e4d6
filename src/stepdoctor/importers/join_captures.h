// Trace files that are successive captures of one profiled process -> one trace: with
// torch.profiler's schedule(..., repeat=N) and tensorboard_trace_handler, each cycle is written
// to a file of its own (<worker>.<ms>.pt.trace.json), its ProfilerStep numbers continuing where
// the last file's stopped. Read apart, each file would be a worker with a few of the run's steps.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// The unknown time between two captures whose clocks each start near zero (the autograd
// profiler's export): the later one is placed this long after the earlier one ends, outside
// every step.
inline constexpr int64_t kCaptureGapNs = 1'000'000'000;

// Joins, in place, each run of parts that are captures of one process: files in one folder,
// each with one worker of the same name, pid and rank, each with numbered ProfilerStep#N
// markers, and each one's first step number past the previous one's last. A later capture that
// would overlap the one before (a clock restarted at zero) is moved to kCaptureGapNs after it; one
// that does not (Kineto's clock runs on) keeps its times. `paths` holds each part's file and is
// joined alike (the first path of each run stays). Each join is noted in `notes`, and a joined
// trace is finalized again. REQUIRED: parts come in the order their files were listed.
//
// Before that, TF1 timelines of one sess.run each in one folder, whose times follow one another
// (a timeline written per step), are joined into one worker with a step marker per file.
void JoinCaptures(std::vector<Trace>* parts, std::vector<std::string>* paths, ImportDiagnostics* notes);

}  // namespace stepdoctor
