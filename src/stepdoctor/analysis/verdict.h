// Findings + step signals -> the one primary bottleneck and the report's first line.
#pragma once

#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// The bottleneck a finding id points at, from its rule's RuleDef (input_bound -> input, ...);
// kUnknown for notes and ids no rule registers.
Bottleneck BottleneckOfFinding(const std::string& id);
// The bottleneck a finding names: its own where its evidence decided one, else its id's.
Bottleneck BottleneckOf(const Finding& f);

// Order of precedence:
//   1. the first (highest-ranked) high-severity finding that names a bottleneck;
//   2. device compute, when the device computes >= kComputeVerdictPct of the step;
//   3. the first moderate finding that names a bottleneck;
//   4. device compute, when a compute_bound note was made; else unknown, its summary the
//      gpu_well_fed note of a GPU log without a profile (busy GPUs, at step 2's place when
//      their utilisation is >= kComputeVerdictPct: utilisation cannot tell compute from
//      collective waits), else quoting the first moderate or high finding that names no
//      bottleneck, if any.
// An actionable bottleneck that takes a large share beats a busy device: it is what to fix.
// A finding chosen at 1 or 3 whose own fix the what-if replay says would not shorten the step
// (speed-up under kNoGainSpeedup, the replay fitting the measured step within kReplayFitPct)
// because another side bounds it yields the verdict to a finding of that side, and the
// summary says why.
Verdict MakeVerdict(const std::vector<Finding>& ranked, const StepSignals* steps);

// The finding f yields to, as above: one of the side f's prediction is bound by; null if none.
const Finding* BoundingFinding(const Finding& f, const std::vector<Finding>& ranked);
// The first finding that yields moves behind the one it yields to, so the findings lead with
// what the verdict names.
void RankBoundingFindingsFirst(std::vector<Finding>* ranked);
// The finding the verdict's first line names (its title, earliest in the summary) moves to the
// front, so the findings begin where the headline does: a compute-bound verdict over a moderate
// host finding lists compute_bound first. Nothing moves where the summary names none.
void LeadWithTheVerdictsFinding(const Verdict& v, std::vector<Finding>* ranked);

// Where device activity was not captured: the host-side finding that won, if any, is stated as
// a host-side view (only input waits can bound a step from the host's view alone); otherwise
// the verdict says what is missing. Never a device-side verdict.
// `no_operators`: the profiler ran but recorded no operator (DeviceEvidence::no_operators).
// `steps`: where the host waits on the device kHostOnlyDeviceWaitPct or more of the step, the
// verdict says so: the device's unrecorded work sets the pace (a host-side fact).
Verdict HostOnlyVerdict(const std::vector<Finding>& ranked, bool nothing_launched = false, bool no_operators = false,
                        const StepSignals* steps = nullptr);
inline constexpr double kHostOnlyDeviceWaitPct = 50.0;

inline constexpr double kComputeVerdictPct = 70.0;  // device compute share that wins over moderate findings
inline constexpr double kNoGainSpeedup = 1.02;      // a predicted speed-up under this is no gain
inline constexpr double kReplayFitPct = 10.0;       // the untransformed replay within 10% of the measured step

}  // namespace stepdoctor
