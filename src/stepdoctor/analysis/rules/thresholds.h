// Every rule's thresholds, one section per rule, read by the rules and by their tests (which
// check both sides of each: k - 0.1 does not fire, k + 0.1 does). Shares are percent (0-100) of
// the mean step unless the comment says otherwise. Thresholds that come from the step breakdown
// or the steps themselves (kOneOffRuntimeNs, kOutlierStepFactor, kColdWindowStartupPct, ...) are
// defined beside the analysis that applies them and referred to here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stepdoctor {

// --- Memory nearly full: one definition for gpu_memory_near_full (NVML's used vs total) and
// memory_pressure (an allocator's peak vs the device's memory). Sizes are shown in GiB.
inline constexpr double kMemoryNearFullPct = 90.0;       // peak in use >= 90% of the device's memory: fires
inline constexpr double kMemoryNearlyExhaustedPct = 97.0;  // >= 97%: high (the next larger batch or graph will OOM)
// A GPU log's samples near full number at least this many, and the GPU computed in none of them
// (utilisation under kUnusedGpuPeakPct): the memory was reserved, not filled by work (low).
// A GPU log in which no GPU ran work and no process held one, shorter than this (seconds where
// the log times its samples, else samples): the job may not have reached the GPU before the log
// ended (a job script's nvidia-smi before training starts): low, not high.
inline constexpr double kShortUnusedLogS = 60;
inline constexpr int64_t kShortUnusedLogSamples = 60;
inline constexpr int kNearFullIdleMinSamples = 3;

// --- Resource samples (run/watch samples, nvidia-smi, SageMaker): shared by the
// classification in resource_signals.cc and the resource rules (each rule file says how it
// uses them).
inline constexpr double kGpuLowUtilPct = 30.0;          // mean GPU utilisation below this: the GPU is starved
// CPU thresholds compare the tree's demand (time on a CPU plus time runnable but waiting for
// one), so a job slowed by other processes on a shared machine still reads as CPU-bound.
inline constexpr double kTreeCpuHighOfCoresPct = 70.0;  // process tree wanting >= 70% of all cores: CPU-bound
inline constexpr double kOneCoreSaturatedPct = 85.0;    // tree wanting >= 85% of one core ...
inline constexpr double kOneCoreCeilingPct = 130.0;     // ... and <= 130%: one busy thread, the rest idle
inline constexpr double kGpuFeedCpuPct = 85.0;          // GPU starved and the tree busy >= 85% of a core: host-bound
inline constexpr double kOtherCoresIdlePct = 50.0;      // the other cores' mean busy % below this: idle capacity
inline constexpr double kIowaitHighPct = 10.0;          // machine iowait >= 10% of CPU time: storage stalls
inline constexpr double kDiskUtilHighPct = 60.0;        // a disk with I/O in flight >= 60% of the time
inline constexpr double kPsiIoHighPct = 20.0;           // some task stalled on I/O >= 20% of the time
inline constexpr double kTreeBlockedHighPct = 30.0;     // a tree process in D state in >= 30% of samples
inline constexpr double kTreeIoHighBytesPerS = 20e6;    // the tree moving >= 20 MB/s through the block layer
inline constexpr double kIdleTreeCpuPct = 10.0;         // tree below 10% of one core, with no I/O or GPU: idle
inline constexpr double kIdleGpuUtilPct = 5.0;          // a GPU below 5% counts as idle
// The longest idle stretch with memory held, with under a quarter of the job's samples of work
// before it: the job is likely still starting (compiling, capturing graphs), said first among causes.
inline constexpr double kEarlyStretchBusyShare = 0.25;
inline constexpr double kUnusedGpuPeakPct = 10.0;       // a GPU whose utilisation never reaches 10% ran no work: unused
// Memory reserved at once: a rise of 25% of the GPU's memory or more between two samples with the
// GPU computing nothing, to 90% of the log's peak or more (a pool taken before the work).
inline constexpr double kReserveJumpShare = 0.25;
inline constexpr double kReservedNearPeak = 0.9;
// Without utilisation: a CUDA context alone takes ~300 MiB, so a GPU never holding 100 MiB ran no process.
inline constexpr double kNoProcessMemBytes = 100.0 * 1024 * 1024;
// A start-up: the first GPU in use short of its working level (half the log's median utilisation,
// and kIdleGpuUtilPct) for its first samples, until a window of a hundredth of the log (3 samples
// at least) averages that level; at least 3 samples and 5% of the log (shorter hardly moves the
// mean), at most 50% (longer is how the run went), averaging under a quarter of the median (and
// kIdleGpuUtilPct): a blip of a library initialising inside it does not end it.
inline constexpr int kStartupMinSamples = 3;
inline constexpr double kStartupWorkShare = 0.5;
inline constexpr size_t kStartupWindowDivisor = 100;
inline constexpr double kStartupMaxMeanShare = 0.25;
inline constexpr double kStartupMinSharePct = 5.0;
inline constexpr double kStartupMaxSharePct = 50.0;
// ... and the GPUs average at least 10% after it: a log that stays near idle had no start-up
// before work, just no work.
inline constexpr double kStartupMinAfterPct = 10.0;
// Samples with no process on the GPU (memory within kNoProcessMemBytes of the log's lowest: no
// context, whatever utilisation the driver's averaging window still reports after an exit)
// between runs or after the job:
// left out of the job's figures where they are at least 5% of the log (GpuRuns).
inline constexpr double kNoProcessMinSharePct = 5.0;
// ... where the lowest reading is under kHeldMemoryBytes or under 10% of the log's peak (a display
// server's or another user's small context beside a job that held far more).
inline constexpr double kNoProcessPeakShare = 0.10;
// The longest idle stretch with memory held, after any start-up, is stated where it lasts at least
// 3 samples and 10% of the job's samples, and at most 50% (longer is how the job ran: idle, not
// paused) (GpuIdleStretch).
inline constexpr int kIdleStretchMinSamples = 3;
inline constexpr double kIdleStretchMinSharePct = 10.0;
inline constexpr double kIdleStretchMaxSharePct = 50.0;
// ... and, where the log has power draw, each of its samples draws under halfway from the log's
// lowest draw to its busy samples' median (a reading of 0% at a working GPU's power is a snapshot
// between kernels), where the two are at least 20 W apart.
inline constexpr double kIdlePowerShare = 0.5;
inline constexpr double kIdlePowerMinSpreadW = 20.0;
// Snapshots this far apart or more see only the instant they are taken: the stretch says so.
inline constexpr double kCoarseSampleIntervalS = 10.0;
inline constexpr double kGpuWellFedPct = 80.0;          // mean GPU utilisation >= 80%: the GPU rarely waits (well fed)
inline constexpr double kDipFraction = 0.5;             // a dip: utilisation below half its median ...
inline constexpr double kDipBaselineMinPct = 40.0;      // ... where the median is at least 40%
inline constexpr int kDipMinCount = 3;                  // periodic: at least 3 dips ...
inline constexpr double kDipMaxPeriodCv = 0.3;          // ... whose spacing varies by at most 30%
inline constexpr int kMinSamples = 5;                   // fewer samples than this: no resource signals
inline constexpr double kSampleGapFactor = 3.0;          // a spacing this many times the usual one: a hole in the sampling
inline constexpr double kCpuWaitEvidencePct = 10.0;     // the job waiting >= 10% of a core for a CPU: worth a line of evidence

// --- device_activity_missing
inline constexpr double kDeviceReadNotePct = 10.0;  // host time in device reads (.item(), copies) >= 10%: named

// --- untraced_time (gaps with nothing recorded: kUntracedGapNs, trace_to_step_signals.h)
inline constexpr double kUntracedNotePct = 10.0;      // >= 10%: compute_bound says the step has idle host time it cannot explain
inline constexpr double kUntracedModeratePct = 25.0;  // untraced host time >= 25% of the step: moderate
inline constexpr double kUntracedHighPct = 50.0;      // >= 50%: high (the trace explains under half the step)
// --- unrecorded_device_work: the host blocked on the device while the trace shows it idle
inline constexpr double kUnrecordedDeviceWorkPct = 20.0;  // such waits >= 20% of the step: the device's work is missing

// --- cold_start (fires at kColdWindowStartupPct of the window, trace_to_coverage.h)
inline constexpr double kColdStartModeratePct = 50.0;  // start-up >= 50% of the window: moderate

// --- collective_bound
inline constexpr double kCollectiveMinSharePct = 15.0;   // exposed collective time >= 15% of the step: fires
inline constexpr double kCollectiveHighSharePct = 30.0;  // >= 30%: high
// Its bandwidth evidence (where the trace records message sizes: analysis/trace_to_collective_bandwidth).
inline constexpr double kCollectiveSmallMessageBytes = 1024.0 * 1024;  // a size row whose mean message is under 1 MiB is small
inline constexpr double kCollectiveLatencyBoundPct = 50.0;  // small messages >= 50% of the sized collective time: latency-bound
inline constexpr double kCollectiveBusbwFarBelowPct = 25.0;  // larger messages under 25% of the link's peak: far below it

// --- compute_bound
inline constexpr double kComputeBoundPct = 60.0;         // device compute >= 60% of the step
inline constexpr double kLowReducedPrecisionPct = 50.0;  // < 50% of kernel time in 16-bit or narrower: suggest AMP
inline constexpr double kDeviceSpanBusyPct = 90.0;       // device busy >= 90% of its own span: it sets the pace
inline constexpr double kMatrixBoundPct = 80.0;          // GEMMs/convolutions >= 80% of kernel time: no fusion advice
// Under half the kernel time in GEMMs and convolutions: the rest (elementwise, normalization,
// reductions) moves memory, and compute_bound advises fusing it rather than TensorCores alone.
inline constexpr double kMatrixMinorPct = 50.0;
// A CPU-only step shorter than this (median): each call's fixed cost outside the trace (Python, the
// feed, the session or dispatch call) weighs like its operators; a larger batch is advised first,
// and no move to an accelerator (whose launches and copies would outweigh work this small).
inline constexpr double kSmallCpuStepMs = 2.0;
// compute_bound on the CPU: an operator that only moves data (a transpose, padding, a copy into
// another layout) running this share of the window or more is named, with layout advice.
inline constexpr double kLayoutOpSharePct = 25.0;

// --- a trace of the program's own spans (no category, no framework): one call holding this
// share of the window is named in the note that lowers the confidence
inline constexpr double kOneCallWindowPct = 50.0;

// --- copy_bound
inline constexpr double kCopyBoundPct = 20.0;            // host-device copies >= 20% of the step: fires
inline constexpr double kCopyBoundHighPct = 50.0;        // >= 50%: high
inline constexpr double kCopyOverComputeFactor = 2.0;    // ... and >= 2x the device's compute and collectives
inline constexpr double kCopySlowDirectionFactor = 3.0;  // each copy one way >= 3x as long as each the other way: said
// copy_bound on a TF1 run: where variable reads are at least this share of the copies to the
// device, the copies are the model's weights re-sent each run (tf1_runs.h: Tf1CopiedWeights).
inline constexpr double kWeightCopyShare = 0.5;

// --- cpu_saturated (fires on ResourceClass::kCpuBound: kTreeCpuHighOfCoresPct)
inline constexpr double kContendedWaitShare = 0.25;  // waiting >= 25% of what it wants: other processes slow it

// --- eager_overhead
inline constexpr double kEagerMinSharePct = 10.0;   // eager op time >= 10% of the step: fires
inline constexpr double kEagerHighSharePct = 30.0;  // >= 30%: high
inline constexpr int64_t kEagerMinOps = 10;         // fewer eager ops: a few setup ops, not a pattern

// --- host_bound (tiny operators: kTinyOpNs, trace_to_step_signals.h)
inline constexpr double kHostModeratePct = 10.0;  // host-bound time >= 10% of the step: moderate
inline constexpr double kHostHighPct = 30.0;      // >= 30%: high
inline constexpr double kHostCpuWorkShare = 0.5;  // CPU operators >= half the host's exposed time: data-making advice
// Under torch.compile without CUDA graphs, host time inside its compiled regions >= half the host's
// exposed time: the compiled code's own launches are the cost, and mode="reduce-overhead" is the advice.
inline constexpr double kHostInCompiledShare = 0.5;
// Gaps under 1 ms with nothing recorded >= half the host's exposed time: the title says the time
// is in those gaps, not in the operators it lists.
inline constexpr double kHostUnrecordedGapShare = 0.5;
// A TensorFlow graph's operators are "too small to outweigh their scheduling" only where tiny
// operators hold at least half the operator time; else the executor's scheduling between them is
// named as the overhead.
inline constexpr double kTinyOpsTooSmallSharePct = 50.0;

// --- Profiler overhead (analysis/profiler_overhead): this many python_function events (with_stack)
// or [memory] events (profile_memory) per step are stated beside the report; with the Python
// stacks, a host-bound verdict drops from high to medium confidence.
inline constexpr int64_t kProfilerOverheadEvents = 20;

// --- device_activity_missing: a host wait on the device this long is stated as evidence that the
// device was busy (trace_to_coverage)
inline constexpr int64_t kDeviceWaitEvidenceNs = 1'000'000;
// An allocation operator (aten::empty, aten::empty_strided) this long is a device's runtime
// starting inside it (context creation on the first device tensor): a host allocation takes
// microseconds, as the memory is mapped lazily. Evidence of an accelerator.
inline constexpr int64_t kDeviceStartAllocNs = 1'000'000'000;
// This many of the profiler's memory events, all allocating on the CPU, with nothing else saying the
// job used an accelerator: a device the trace lists (deviceProperties) went unused.
inline constexpr size_t kHostOnlyAllocEvents = 5;

// --- idle_gpu (unused: kUnusedGpuPeakPct)
inline constexpr double kHeldMemoryBytes = 1024.0 * 1024 * 1024;  // >= 1 GiB on an unused GPU: a process holds it
// ... in at least half of the memory samples: a process waits there (fewer: it touched the GPU
// and left, or had not yet started).
inline constexpr double kHeldMemorySampleShare = 0.5;

// --- input_bound: tiers are on the exposed wait (the device idle meanwhile): a wait hidden
// behind device work costs nothing. On CPU-only traces the two are the same.
inline constexpr double kInputModeratePct = 5.0;  // exposed input wait >= 5% of the step: moderate
// Without steps, operators, launches and device work under this share of the window beside the
// input calls: the trace records the input pipeline alone (input_bound then says so, low).
inline constexpr double kInputOnlyWorkPct = 5.0;
inline constexpr double kInputHighPct = 20.0;     // >= 20%: high (TensorFlow's profiler says "HIGHLY")
// A fetch from DataLoader worker processes this short on average hands over a batch that was
// ready (dequeue, unpickle, map its shared-memory tensors: about 1.5 ms in PyTorch's own
// num_workers=4 sample): the workers keep up, and more of them would not shorten it.
inline constexpr double kLoaderReadyFetchMs = 3.0;  // mean fetch <= 3 ms: workers keep up; above: they cannot
// What limits the input where the dataset's storage was probed (diagnose --data,
// analysis/input_limit), in input_bound and tfdata_bottleneck_stage alike: the storage's rate at
// the job's reader count over the rate steps without input wait read.
inline constexpr double kStorageHeadroomFactor = 1.5;  // under 1.5x: storage is the limit; at or above: the CPU

// --- kernel_launch_bound
inline constexpr double kLaunchBoundMinPct = 15.0;   // launch time with the device idle >= 15% of the step: fires
inline constexpr double kLaunchBoundHighPct = 30.0;  // >= 30%: high

// --- low_precision
inline constexpr double kLowPrecisionMinKernelSharePct = 30.0;  // kernels >= 30% of the step: precision matters
inline constexpr double kLowPrecisionMax16BitPct = 20.0;        // < 20% of kernel time in 16-bit kernels: fires
inline constexpr double kLowPrecisionHighFp32SharePct = 50.0;   // fp32 kernels >= 50% of the step: high
// What 16-bit gives fp32 kernels in the gain estimate (bytes halved; matmuls on TensorCores often gain more).
inline constexpr double kLowPrecisionAssumedSpeedup = 2.0;

// --- periodic_stall (stalls themselves: kStallFactor ..., tf_event_stalls.h)
inline constexpr double kPeriodicStallMinSharePct = 5.0;   // stall time >= 5% of the run's wall time: fires
inline constexpr double kPeriodicStallHighSharePct = 20.0;  // >= 20%: high

// --- periodic_utilisation_dips (dips: kDipFraction ... above)
inline constexpr double kDipModerateSharePct = 10.0;  // dips take >= 10% of the time: moderate, else low

// --- rank_imbalance
inline constexpr double kImbalanceMinPct = 5.0;    // slowest rank's extra busy time >= 5% of the step: fires
inline constexpr double kImbalanceHighPct = 20.0;  // >= 20%: high

// --- retracing
inline constexpr int64_t kRetraceMinTraces = 3;    // a function traced >= 3 times in the window: fires
inline constexpr int64_t kRetraceHighTraces = 10;  // >= 10 traces: high

// --- serial_cpu_pipeline (fires on ResourceClass::kSerialCpu: kOneCoreSaturatedPct ...)
inline constexpr int kSerialCpuHighCores = 4;  // >= 4 cores, 3 of them idle: high (most of the machine unused)

// --- step_time_outliers (an outlier: kOutlierStepFactor x the median, signals.h)
inline constexpr double kOutlierModerateExcessPct = 10.0;  // outliers' excess >= 10% of all step time: moderate
inline constexpr int kMinPeriodicOutliers = 3;             // three equally spaced outliers make a period
inline constexpr int64_t kMinOutlierPeriodSteps = 2;       // a shorter period (slow steps in a row) is a slow stretch, not a schedule
inline constexpr double kOutlierCauseShare = 0.5;          // one category holds >= half the slow steps' extra time: named as the cause
inline constexpr size_t kOutlierScheduleLookahead = 4;     // a schedule's next slow step is among the next 4 outliers (noise between)

// --- straggler (ranks matched and aligned at their collectives: analysis/trace_to_cross_rank.h)
inline constexpr double kStragglerMinPct = 5.0;       // the others' wait for the last rank >= 5% of the step: fires
inline constexpr double kStragglerHighPct = 15.0;     // >= 15%: high

// --- tfdata_bottleneck_stage: tiers on the exposed wait, as input_bound (slow calls: kTfDataSlowGetNextNs)
inline constexpr double kTfDataInputMinPct = 5.0;         // exposed input wait >= 5% of the step: worth naming a stage
inline constexpr double kTfDataInputHighPct = 20.0;       // >= 20%: high (the TF profiler's "highly input-bound")
inline constexpr double kTfDataStageMinSharePct = 30.0;  // the stage holds >= 30% of blocking self time

}  // namespace stepdoctor
