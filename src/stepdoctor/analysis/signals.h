// The façade rules read: aggregates computed once from the trace (and from live samples),
// never raw events. Each section is optional: a rule whose section is absent does not fire.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/memory_timeline_signals.h"
#include "stepdoctor/analysis/trace_to_memory_peaks.h"
#include "stepdoctor/analysis/trace_to_outlier_steps.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// Step-time categories in display order; the same ids appear in reports and JSON.
enum class StepCategory : uint8_t {
  kInput,          // waiting on data (DataLoader __next__, IteratorGetNext) while the device idles
  kKernelLaunch,   // host in runtime/launch calls while the device idles
  kHostCompute,    // host in framework ops or Python between them while the device idles
  kDeviceCompute,  // device (or, on CPU-only traces, top-level operators) computing
  kCollectives,    // communication kernels not hidden under compute
  kMemcpy,         // copies and memsets not hidden under compute or communication
  kOther,          // none of the above: idle, or work we cannot attribute
  kCount_
};
const char* StepCategoryId(StepCategory c);     // "input", "kernel_launch", ...
inline constexpr int kStepCategoryCount = static_cast<int>(StepCategory::kCount_);

// A step slower than this many times the median step is an outlier.
inline constexpr double kOutlierStepFactor = 1.3;
// Fewer steps than this say nothing about outliers.
inline constexpr int kMinStepsForOutliers = 5;

// Signals from the trace's steps and events (analysis/trace_to_step_signals).
struct StepSignals {
  WorkerId worker;                 // the worker the step figures describe
  bool has_steps = false;          // step markers were found
  bool cpu_only = false;           // no device activity and no sign of one: the CPU is the device
  // Device work recorded and not one host event (a tracer of device activity alone): host-side
  // causes (input, launches, Python) cannot be seen, and no gap is the host's overhead.
  bool no_host_events = false;
  bool device_missing = false;     // an accelerator was used but its activity was not recorded
  std::vector<std::string> device_evidence;  // what shows an accelerator was used (DeviceEvidence)
  std::string device_listed_unused;          // a listed device the job did not use (DeviceEvidence)
  bool device_per_operator = false;  // device time per operator, not per kernel (DeviceEvidence::per_operator)
  bool device_nothing_launched = false;  // device_missing, and no call in the window issued device work
  bool device_tracer_on = false;  // device_missing, though the device tracer was on (DeviceEvidence::tracer_on)
  bool device_tracer_started = false;  // ... as the trace's header says (DeviceEvidence::tracer_started)
  bool device_calls_traced = false;    // a framework's profiler recorded runtime calls (DeviceEvidence::calls_traced)
  bool device_no_operators = false;    // the profiler ran, no operator recorded (DeviceEvidence::no_operators)
  std::string profiler_window;     // device_missing: the profiler's span far beyond the events (DeviceEvidence)
  double device_wait_ms = 0;       // device_missing: the longest host wait on the device (DeviceEvidence)
  std::string device_synced_after_launches;  // device_missing: the device-wide sync after the last launch (DeviceEvidence)
  std::string device_wait_name;
  int step_count = 0;
  std::vector<int64_t> step_numbers;
  std::vector<double> step_ms;     // per step
  double median_step_ms = 0, p90_step_ms = 0, max_step_ms = 0, mean_step_ms = 0;
  std::vector<size_t> outlier_steps;  // indices of steps slower than kOutlierStepFactor x median
  std::vector<SlowOnlyEvent> slow_only_events;  // what outlier steps run and no other step does
  // Mean ms per step in each category (they sum to the mean step time).
  double category_ms[kStepCategoryCount] = {};
  std::vector<std::vector<double>> per_step_category_ms;  // [step][category]
  // Finer splits of two categories, in the TF profiler's terms (ms per step, summing to their
  // category): device compute in 16-bit (fp16, bf16: TF's own profiler counts bf16 as 32-bit)
  // or TensorCore kernels vs the rest; copies by direction (memsets and peer copies are "other").
  double device_compute_16bit_ms = 0, device_compute_32bit_ms = 0;
  double memcpy_h2d_ms = 0, memcpy_d2h_ms = 0, memcpy_d2d_ms = 0, memcpy_other_ms = 0;
  int64_t memcpy_h2d_copies = 0, memcpy_d2h_copies = 0;  // device copy records in the steps, by direction
  // Kernel launch calls in the steps that carry a correlation id, and those whose kernel the
  // trace records: a device tracer that lost records, or a capture that stopped while the device
  // still had launched work to run, leaves many without.
  int64_t kernel_launches = 0, kernel_launches_recorded = 0;
  // Each direction's copies by their own time (ms per step), whatever runs beside them, and the
  // time copies ran both ways at once (on separate streams): the split above gives a copy hidden
  // under the other direction none of its time.
  double memcpy_h2d_own_ms = 0, memcpy_d2h_own_ms = 0, memcpy_both_ways_ms = 0;
  double input_wait_ms = 0;        // mean host-side input wait per step, hidden or not
  // Parts of `other` by cause (ms per step): host syncs waiting on the device; device idle
  // while its next work was already queued; untraced host time; one-off start-up calls; waiting
  // for other ranks before a collective can start (Horovod's negotiation).
  double sync_wait_ms = 0, device_queued_ms = 0, untraced_host_ms = 0, startup_ms = 0, peer_wait_ms = 0;
  std::vector<TopEvent> startup_events;  // the one-off runtime calls behind startup_ms
  std::vector<Interval> first_calls;     // SlowFirstCalls over the steps: the step model reads them, not recomputes
  double device_span_busy_pct = 0; // device busy over its own active span within the steps
  double device_span_ms = 0;       // that span: first device start to last device end
  double host_end_ms = 0;          // host's last activity, from the first step's start
  double device_end_ms = 0;        // device's last activity, from the first step's start
  double collective_total_ms = 0;  // mean communication-kernel time per step, hidden or not
  std::vector<TopEvent> input_wait_events;  // what the host waited in
  // Device activity.
  int64_t kernels_per_step = 0;
  double median_kernel_us = 0;     // median device kernel duration
  double median_launch_us = 0;     // median kernel-launch runtime call duration
  double device_busy_pct = 0;      // union of device activity / step time
  // Mean ms per step of device work the steps launched (linked by correlation id to a launch
  // inside them, or starting inside them where nothing links it), wherever it ran: a device that
  // lags the host runs part of each step's work in the next, and the last step's past the window.
  // The floor under any host-side fix. 0 where no device work is recorded.
  double device_launched_ms = 0;
  // Host and device events starting inside the steps (their windows' span): how much a short
  // window holds to judge by.
  int64_t events_in_steps = 0;
  double tiny_op_share_pct = 0;    // CPU-only: share of top-level op time that is dispatch, not work (cpu_op_work.h)
  // Mean ms per step of host_compute spent in the framework's bookkeeping ops
  // (EventKind::kFrameworkOverhead: TF's NoOp/_SOURCE, _Arg, Const, ...), a part of that category.
  double framework_overhead_ms = 0;
  // Mean ms per step of host_compute that is gaps under kUntracedGapNs between recorded host
  // events, with nothing recorded in them (overhead between operators, or what the profiler did
  // not record): the part of that category no event explains.
  double host_short_gap_ms = 0;
  int64_t top_level_ops_per_step = 0;
  // Precision (devices that have TensorCores): share of kernel time in fp32 vs 16-bit kernels.
  double fp16_kernel_pct = 0;      // reduced precision (16-bit, fp8, fp4: model/device_work_classify) share
                                   // of the kernel time whose names state a precision
  bool tensor_core_capable = false;
  double matrix_kernel_pct = 0;
  // Host compute (exposed, ms per step) inside top-level operators that compute on the CPU and
  // launch nothing (analysis/trace_to_host_cpu_ops), and the longest of them by name.
  double host_cpu_op_ms = 0;
  std::vector<std::string> host_cpu_op_names;
  // Host time (host_compute and kernel_launch, ms per step) inside torch.compile's regions: the
  // compiled code's own dispatch and launches, which capturing it as CUDA graphs removes.
  double host_in_compiled_ms = 0;
  // Host compute (exposed, ms per step) in the driver's allocations and frees (cudaFree, hipFree,
  // cudaMalloc): memory the caching allocator handed back or could not serve from its cache.
  double host_allocator_ms = 0;
  // Device activity not recorded: host time (ms per step) in operators that can wait on the
  // device (.item(), copies, synchronize), and the longest of them by name.
  double host_device_read_ms = 0;
  std::vector<std::string> host_device_read_names;
  bool host_cpu_ops_by_name = false;  // no launch call recorded: judged by duration and operator name    // share of kernel time in GEMMs and convolutions (DeviceWorkClass::matrix)
  std::vector<TopEvent> top_kernels;
  std::vector<TopEvent> top_ops;
};

// One worker's (rank's) step figures, for comparing ranks of one distributed job.
struct WorkerStepFigures {
  std::string name;                 // hostname or file stem, with the rank where known
  int rank = -1;
  int steps = 0;
  double median_step_ms = 0;
  double compute_ms = 0;            // device compute per step (mean)
  double collectives_ms = 0;        // exposed communication per step (mean)
  double host_ms = 0;               // input + launch + host compute per step (mean)
  double input_ms = 0;              // exposed input wait per step (mean), a part of host_ms
  std::vector<int64_t> step_numbers;  // the steps analysed, and their times (ms)
  std::vector<double> step_ms;
};

struct TfSignals;        // analysis/tf_signals.h: tf.data, eager, precision, memory (TensorFlow)
struct AppliedOptimizations;  // analysis/trace_to_applied_optimizations.h: graphs, compile, workers
struct ResourceSignals;  // analysis/resource_signals.h: live samples and GPU logs
struct CrossRank;        // analysis/trace_to_cross_rank.h: the ranks aligned at their collectives
struct InputLimitSignals;  // analysis/input_limit.h: the job's reads against its probed storage (--data)
struct HorovodLateRanks;   // analysis/horovod_negotiation.h: the rank a Horovod negotiation waits for
struct HorovodAllreduceSizes;  // analysis/horovod_negotiation.h: the sizes of its all-reduces
struct Tf1WeightCopies;    // analysis/tf1_runs.h: the model's weights a TF1 run copies to a device

struct Signals {
  const Trace* trace = nullptr;
  Framework framework = Framework::kUnknown;  // the analysed worker's (FrameworkOf)
  const StepSignals* steps = nullptr;
  const TfSignals* tf = nullptr;
  const ResourceSignals* resources = nullptr;
  const AppliedOptimizations* applied = nullptr;  // what the trace shows already in use
  const InputLimitSignals* input_limit = nullptr;  // only where the dataset's storage was probed
  std::vector<WorkerStepFigures> workers;  // every worker with steps, when there are two or more
  const CrossRank* cross_rank = nullptr;   // with workers: their collectives matched and aligned (ranks[i] is workers[i])
  // Achieved collective bandwidth against the link (analysis/trace_to_collective_bandwidth), with
  // the transfer-only figures where the ranks were aligned; null where no collective is sized.
  const CollectiveBandwidthSummary* collective_bandwidth = nullptr;
  std::vector<DeviceMemoryPeak> memory;    // PyTorch allocator peaks per GPU (profile_memory)
  const MemoryTimelineSignals* memory_timeline = nullptr;  // a PyTorch memory timeline, where one was read
  const HorovodLateRanks* horovod = nullptr;  // a Horovod timeline's rank-ready markers, where it has them
  const HorovodAllreduceSizes* horovod_sizes = nullptr;  // its all-reduces' sizes, where it records them
  // A Horovod timeline holding its start-up broadcast alone: how many tensors it broadcast
  // (HorovodStartupBroadcastsOnly; 0 where anything else was negotiated).
  int64_t horovod_startup_broadcasts = 0;
  const Tf1WeightCopies* tf1_weights = nullptr;  // a TF1 run's copies of the model's weights, where it makes any
};

}  // namespace stepdoctor
