// TensorFlow profiler's own verdict (Trace::tf_verdicts, from the profile plugin's pages) beside
// stepdoctor's: one Report::tensorflow_view entry per host, and a diagnostics line where the two
// disagree on how much of the step waits for input.
#pragma once

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// TensorFlow's input share and ours further apart than this (points of step time): said in diagnostics.
inline constexpr double kTfInputDisagreementPts = 5.0;
// TensorFlow's op statistics: eager ops holding >= 10% of the host's op time are named in the summary.
inline constexpr double kTfEagerNotePct = 10.0;

// REQUIRED: r->breakdown is filled (ours is read from its "input" entry, where there is one).
// Where the inputs hold only TensorFlow's pages (no events), the verdict line says what TensorFlow
// concluded, marked as TensorFlow's.
void TfVerdictsToReport(const Trace& trace, Report* r);

}  // namespace stepdoctor
