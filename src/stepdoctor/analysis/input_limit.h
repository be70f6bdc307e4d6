// The input side's figures (the DS-Analyzer differential): what the job's input pipeline reads
// (from its steps and the samples each step takes, or the bytes live samples saw it read), set
// against what the storage under its dataset delivered when probed (io-bench's figures, measured
// in the CLI and handed in as data). The rules input_bound and tfdata_bottleneck_stage read them
// to say whether storage or the CPU is the limit (rules/input_limit_advice).
#pragma once

#include <optional>
#include <string>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/core/result.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/io_bench_report.h"

namespace stepdoctor {

struct TfSignals;
struct ResourceSignals;
struct AppliedOptimizations;

// What the job reads. Rates are 0 where unknown.
struct InputDemand {
  int steps = 0;
  double step_ms = 0;                 // mean step
  double exposed_input_ms = 0;        // input wait per step with the device idle (all of it on CPU-only)
  double input_wait_ms = 0;           // host wait on input per step, hidden or not
  double samples_per_step = 0;        // given (the batch size); 0: unknown
  double consumed_samples_per_s = 0;  // at today's step rate
  double needed_samples_per_s = 0;    // for steps that never wait on input: step_ms - exposed_input_ms
  double consumed_mb_per_s = 0;       // read by the job's processes (live samples), 10^6 B/s
  double needed_mb_per_s = 0;         // that, scaled to steps without input wait (the rate alone without steps)
  std::string source;                 // one line: where the figures come from
  std::string samples_from;           // where samples_per_step came from when the trace showed it ("" given)
};

// `steps`/`resources` may be null; `samples_per_step` 0 where not given.
InputDemand StepsToInputDemand(const StepSignals* steps, const ResourceSignals* resources, double samples_per_step);
// Where no samples per step are given, the trace's own batch (trace_to_batch_size.h), stated in
// samples_from and the source line.
void AddBatchFromTrace(const Trace& trace, WorkerId worker, InputDemand* d);

// The same from a whole trace (its primary worker's steps, its live samples): for io-bench --trace.
// Errors: the trace has neither steps nor sampled reads, or steps but no samples per step.
Result<InputDemand> TraceToInputDemand(const Trace& trace, double samples_per_step);

// The demand against the probed storage, at the reader count the job uses.
struct InputLimitSignals {
  InputDemand demand;
  const IoBenchReport* storage = nullptr;
  const IoBenchPhase* phase = nullptr;  // the probe's figure at the job's reader count, on its read path
  int readers = 0;                      // what the job reads with
  std::string readers_source;           // why that many
  double bytes_per_sample = 0;          // given, or the dataset's mean small-file size; 0: unknown
  bool bytes_estimated = false;         // from the dataset's files: the trace does not say
  double deliverable_samples_per_s = 0; // what the storage delivers at `readers`; 0: unknown
  double needed_samples_per_s = 0;      // what steps without input wait read (demand, or its MB/s / bytes)
  double headroom = 0;                  // deliverable / needed; 0: cannot be compared
  double storage_ms_per_step = 0;       // reading one step's samples at `readers`; 0: unknown
  double tfdata_source_share_pct = -1;  // tf.data reading stages' share of blocking self time; -1: no tf.data
  std::optional<double> tree_cpu_pct;   // the job's CPU (live samples, % of one core); absent: not sampled
  std::optional<int> cores;
};

struct InputLimitOptions {
  int readers = 0;              // the job's parallel readers; 0: from the trace
  double bytes_per_sample = 0;  // 0: the dataset's mean small-file size (an estimate, said so)
};

// REQUIRED: `storage` outlives the result. `applied`, `tf`, `resources` may be null.
InputLimitSignals ComputeInputLimit(const InputDemand& demand, const IoBenchReport& storage,
                                    const AppliedOptimizations* applied, const TfSignals* tf,
                                    const ResourceSignals* resources, const InputLimitOptions& o);

}  // namespace stepdoctor
