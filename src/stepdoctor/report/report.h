// The plain result of an analysis: what every renderer (text, json, md, html) prints.
// Analyses fill it; renderers never compute. Times in the report are milliseconds or
// microseconds as their field names say; shares are percent (0-100).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepdoctor/model/import_diagnostics.h"
#include "stepdoctor/report/collectives.h"
#include "stepdoctor/report/critical_path.h"
#include "stepdoctor/report/kernel_tables.h"
#include "stepdoctor/report/whatif.h"

namespace stepdoctor {

// 2: `coverage` (what the input holds), `steps.warmup`, `steps.inferred`, `tensorflow_view`.
// 3: findings[].prediction (the what-if replay's step time once the finding's fix is made).
// 4: findings[].figures, workers[] cross-rank fields (wait, late, last in, clock skew, steps),
//    `alignment` (the ranks matched at their collectives); added within 4: `collective_bandwidth`,
//    `alignment.matched_by`.
inline constexpr int kReportSchemaVersion = 4;

// The fixed set of primary bottlenecks a verdict names.
// Each is named by at least one rule (tested); host-device copies show in the step breakdown.
enum class Bottleneck : uint8_t { kInput, kHost, kDeviceCompute, kCommunication, kUnknown };
const char* BottleneckName(Bottleneck b);  // "input", "host", "device_compute", ...
// The inverse of BottleneckName; nullopt for a name it never gives.
std::optional<Bottleneck> BottleneckFromName(std::string_view name);

// How serious a finding is. kNone marks a healthy note (e.g. compute_bound).
enum class FindingSeverity : uint8_t { kNone, kLow, kModerate, kHigh };
const char* FindingSeverityName(FindingSeverity s);  // "none", "low", "moderate", "high"
// The inverse of FindingSeverityName; nullopt for a name it never gives.
std::optional<FindingSeverity> FindingSeverityFromName(std::string_view name);

struct EvidenceItem {
  std::string label;   // "DataLoader wait per step"
  std::string value;   // "45.2 ms (29.8%)"
};

struct TopEvent {       // an event name behind a finding or a table, with its totals
  std::string name;
  double total_ms = 0;
  int64_t count = 0;
  double share_pct = 0; // of whatever the table is about (step time, kernel time)
};

struct Fix {
  std::string summary;     // one sentence: what to change
  std::string tensorflow;  // code, may be multi-line
  std::string pytorch;     // code, may be multi-line
};

struct Finding {
  std::string id;          // stable: input_bound, host_bound, step_time_outliers, ...
  FindingSeverity severity = FindingSeverity::kNone;
  std::string title;       // one line: "38% of each step waits on the DataLoader"
  double share_pct = 0;    // share of step time the finding is about
  double gain_upper_bound = 1.0;  // speed-up factor if fixed completely (>= 1)
  std::string gain_text;   // "up to 1.4x if the input wait is fully hidden"
  // The step time the what-if replay predicts once the fix this finding advises is made
  // (analysis/trace_to_whatif); absent where the replay has no such fix.
  std::optional<Prediction> prediction;
  // The what-if fix its advice describes where that is not its id's usual one (a host_bound
  // finding advising to move CPU work: "cpuwork", not "launch"); empty: the usual one.
  std::string whatif_fix;
  // The bottleneck this finding names where its own evidence decides it (GPU samples beside a
  // busy CPU: the input where worker processes do the CPU work, else the host); empty: the
  // rule's registered one (BottleneckOf in analysis/verdict.h).
  std::optional<Bottleneck> bottleneck;
  std::vector<EvidenceItem> evidence;
  std::vector<TopEvent> top_events;
  // Named figures for machines (JSON `figures`): the straggler's rank, late_ms_per_step, ...
  std::vector<std::pair<std::string, double>> figures;
  Fix fix;
};

struct Verdict {
  Bottleneck bottleneck = Bottleneck::kUnknown;
  std::string summary;     // the first line of the text report
};

struct StepRecord {
  int64_t number = 0;      // ProfilerStep#N's N, or the ordinal
  int64_t start_ns = 0;
  double duration_ms = 0;
  std::vector<double> category_ms;  // aligned with StepSummary::categories
};

struct StepSummary {
  std::string source;      // "ProfilerStep#N markers", "TF step line", "whole window (no step markers)"
  bool whole_window = false;
  int count = 0;
  double median_ms = 0, p90_ms = 0, max_ms = 0, min_ms = 0, mean_ms = 0;
  int excluded_partial = 0;              // steps left out: empty or overlapping markers, inferred iterations cut by the window edges
  bool inferred = false;   // no markers: iterations inferred from repeated host structure
  std::vector<int64_t> outlier_numbers;  // step numbers flagged as outliers
  std::vector<StepRecord> warmup;        // leading steps kept out of the figures as warm-up
  std::vector<std::string> categories;   // breakdown category ids, in display order
  std::vector<StepRecord> steps;
};

// What a report can say of its only step: numbered N >= 1 by torch.profiler (ProfilerStep#N, the
// profiler's step count), N iterations ran before it under the profiler, so it is no first, cold
// pass; where its one-off start-up shows it cold (`cold_startup_pct` > 0, the share of it), it is
// one; otherwise whether it is one cannot be told. Either way one step shows no variation.
std::string OneStepCaveat(std::string_view source, int64_t number, double cold_startup_pct = 0);

struct BreakdownEntry {
  std::string category;    // input, kernel_launch, host_compute, device_compute, collectives, memcpy, other
  double ms_per_step = 0;
  double pct = 0;          // of step time
};

struct DeviceUtilization {
  std::string worker;
  std::string device;      // "GPU 0 (Tesla V100-SXM2-32GB)"
  double span_us = 0;
  double idle_pct = 0, compute_pct = 0, non_compute_pct = 0;
  std::optional<double> comm_comp_overlap_pct;  // absent when no communication
  int64_t kernel_count = 0;
};

struct WorkerRow {             // one rank of a distributed job (one trace file), for comparing ranks
  std::string name;            // "host (rank 3)"
  int rank = -1;
  int steps = 0;
  double median_step_ms = 0;
  double compute_ms = 0;       // device compute per step (mean)
  double host_ms = 0;          // input + kernel launch + host compute per step (mean)
  double collectives_ms = 0;   // exposed communication per step (mean)
  double input_ms = 0;         // exposed input wait per step (mean), a part of host_ms
  // From the ranks' collectives matched and their clocks aligned (Report::alignment); absent
  // where that was not possible.
  std::optional<double> wait_ms;        // its wait for later ranks at collectives, per step
  std::optional<double> late_ms;        // the others' wait for it per step (behind the next-latest rank)
  std::optional<double> last_in_pct;    // share of the matched collectives it arrived at last
  std::optional<double> clock_skew_ms;  // offset taken off its clock to align it with the first rank's
  std::vector<int64_t> step_numbers;    // its steps and their times, for the rank x step heat map
  std::vector<double> step_ms;
};

struct CollectiveRow {         // matched collectives of one name, across the ranks
  std::string name;            // kernel or op name up to its arguments
  int calls = 0;
  double mean_wait_ms = 0;     // the others' mean wait for the last rank to arrive
  double mean_transfer_ms = 0; // last arrival to completion
};

// How the ranks of a distributed job were held against each other (analysis/trace_to_cross_rank).
struct RankAlignmentSummary {
  bool aligned = false;
  std::string why_not;          // not aligned: why, one sentence
  std::string collectives_on;   // "device" or "host"
  int matched = 0;              // collectives matched on every rank
  int steps = 0;                // steps those fall in
  int unmatched_steps = 0;      // steps left out: different collectives on different ranks
  // The key collectives were matched by: "sequence" (every rank's collectives carry a process
  // group and a sequence number in it) or "step order" (the step and the place in it).
  std::string matched_by = "step order";
  double max_skew_ms = 0;       // largest clock offset applied (absolute)
  std::vector<CollectiveRow> collectives;
};

struct DeviceLane {            // busy intervals of one stream/thread, downsampled, for charts
  std::string label;
  std::vector<std::pair<double, double>> busy_ms;  // [start, end) relative to window start
};

struct TimeSeries {            // a sampled metric for charts (live samples, GPU logs)
  std::string name;            // "gpu0_util_pct", "proc_cpu_pct" (model/series_names.h)
  std::string unit;            // "%", "MB/s", "bytes"
  std::vector<std::pair<double, double>> points;  // (seconds from window start, value), downsampled
};

// What the input holds and lacks, so a reader knows how far to trust the verdict.
struct Coverage {
  std::string framework = "unknown";  // pytorch, tensorflow, jax, horovod, unknown
  // captured: device work recorded; missing: the job used an accelerator but no device work was
  // recorded; cpu_only: no sign of an accelerator; sampled: utilisation samples alone; no_events:
  // nothing recorded, so no claim either way.
  std::string device_activity = "cpu_only";
  std::string steps = "whole_window";  // markers, inferred, whole_window
  std::string confidence = "low";      // high, medium, low
  std::vector<std::string> evidence;   // why: "236 cudaLaunchKernel calls, no kernel events"
  std::vector<std::string> applied;    // optimisations the trace shows in use: "CUDA graphs", ...
};

// TensorFlow profiler's own verdict on a host (its overview / input-pipeline pages), shown beside
// stepdoctor's. Copied as TensorFlow wrote it; the comparison with ours goes to diagnostics.
struct TensorFlowView {
  std::string host;                    // "localhost"
  std::string source;                  // the page read
  std::optional<double> input_pct;     // TF's share of step time waiting for input
  double step_ms = 0;                  // TF's average step time (0 unknown)
  int steps = 0;
  std::vector<BreakdownEntry> breakdown;  // TF's categories: ms per step and % of its step time
  std::string device;                  // the device the page names ("TPU v2"); empty where it names none
  std::string bottleneck;              // "host", "device", "both"
  std::string recommendation;          // TF's statement, markup removed
  std::vector<std::string> other_statements;  // TF's kernel-launch / all-other / collectives warnings
  // From TF's op statistics page (tensorflow_stats.pb), where read: the device's idle share of its
  // profiled time, the op types with the most self time ("device"/"host" in `where`; pct of that
  // side's busy self time), and the share of each side's self time in eager ops.
  std::optional<double> device_idle_pct;
  struct OpType {
    std::string where, type;
    int64_t occurrences = 0;
    double self_ms = 0, pct = 0;
  };
  std::vector<OpType> op_types;
  std::optional<double> eager_device_pct, eager_host_pct;
};

struct Report {
  int schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::vector<std::string> inputs;
  std::string format;          // what was read: "chrome-json (kineto)", "xplane", ...
  Verdict verdict;
  Coverage coverage;
  StepSummary steps;
  std::vector<BreakdownEntry> breakdown;
  // TensorFlow profiler's finer categories: device_compute_16bit / _32bit, memcpy_h2d / _d2h /
  // _d2d / _other (each part of a `breakdown` category; empty on CPU-only traces).
  std::vector<BreakdownEntry> breakdown_detail;
  std::vector<DeviceUtilization> devices;
  std::vector<WorkerRow> workers;    // every worker with steps, when there are two or more
  std::optional<RankAlignmentSummary> alignment;  // with workers whose collectives could be compared
  // Achieved bandwidth of the collectives whose message sizes the trace records, against the link
  // they most likely ran over; absent where none is sized.
  std::optional<CollectiveBandwidthSummary> collective_bandwidth;
  std::vector<Finding> findings;     // ranked: severity, then share
  std::vector<TopEvent> top_kernels; // by total device time
  std::vector<TopEvent> top_ops;     // by total host time (top-level framework ops)
  // What sets each step's length (the median step's segments kept, for the HTML lane); absent
  // without steps or without recorded device work.
  std::optional<CriticalPathSummary> critical_path;
  std::optional<KernelTables> kernel_tables;  // top_ops' kernels, delays, split, queues; as critical_path
  double window_ms = 0;
  std::vector<DeviceLane> lanes;     // for the HTML timeline
  std::vector<TimeSeries> series;    // live samples / GPU logs, for charts
  std::vector<TensorFlowView> tensorflow_view;  // TensorFlow profiler's own verdict, where its pages were read
  std::vector<std::string> diagnostics;  // import and analysis problems, one line each
  std::vector<std::string> notes;        // what the analysis could not do ("no step markers")
};

}  // namespace stepdoctor
