// Every rule's entry point; each is defined in its own file in this folder and listed once in
// registry.cc. A rule returns nothing when its condition does not hold (or its signals are
// absent), and a Finding when it does.
#pragma once

#include <optional>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor::rules {

std::optional<Finding> ColdStart(const Signals& s);         // cold_start.cc
std::optional<Finding> ComputeBound(const Signals& s);      // compute_bound.cc
std::optional<Finding> CopyBound(const Signals& s);         // copy_bound.cc
std::optional<Finding> DeviceActivityMissing(const Signals& s);  // device_activity_missing.cc
std::optional<Finding> CpuSaturated(const Signals& s);             // cpu_saturated.cc
std::optional<Finding> GpuMemoryNearFull(const Signals& s);        // gpu_memory_near_full.cc
std::optional<Finding> GpuPartlyIdle(const Signals& s);            // gpu_partly_idle.cc
std::optional<Finding> GpuStarvedCpuBound(const Signals& s);       // gpu_starved_cpu_bound.cc
std::optional<Finding> GpuUtilisationNotLogged(const Signals& s);  // gpu_utilisation_not_logged.cc
std::optional<Finding> GpuWellFed(const Signals& s);               // gpu_well_fed.cc
std::optional<Finding> GpusUnused(const Signals& s);               // gpus_unused.cc
std::optional<Finding> HostBound(const Signals& s);         // host_bound.cc
std::optional<Finding> IdleGpu(const Signals& s);                  // idle_gpu.cc
std::optional<Finding> InputBound(const Signals& s);        // input_bound.cc
std::optional<Finding> LowGpuUtilisation(const Signals& s);        // low_gpu_utilisation.cc
std::optional<Finding> MostlyIdle(const Signals& s);               // mostly_idle.cc
std::optional<Finding> PeriodicUtilisationDips(const Signals& s);  // periodic_utilisation_dips.cc
std::optional<Finding> SerialCpuPipeline(const Signals& s);        // serial_cpu_pipeline.cc
std::optional<Finding> RankImbalance(const Signals& s);     // rank_imbalance.cc
std::optional<Finding> StepTimeOutliers(const Signals& s);  // step_time_outliers.cc
std::optional<Finding> Straggler(const Signals& s);         // straggler.cc
std::optional<Finding> StorageBound(const Signals& s);             // storage_bound.cc

// TensorFlow rules (signals from analysis/tf_signals.h).
std::optional<Finding> CollectiveBound(const Signals& s);        // collective_bound.cc
// collective_bound's bandwidth evidence and figures, from `bw` (collective_bandwidth_evidence.cc).
// Replaces any already on `f`: the job report restates them once the ranks' alignment has given
// the transfer-only figures.
void SetCollectiveBandwidthEvidence(const CollectiveBandwidthSummary& bw, Finding* f);
std::optional<Finding> EagerOverhead(const Signals& s);          // eager_overhead.cc
std::optional<Finding> KernelLaunchBound(const Signals& s);      // kernel_launch_bound.cc
std::optional<Finding> LowPrecision(const Signals& s);           // low_precision.cc
std::optional<Finding> MemoryComposition(const Signals& s);      // memory_composition.cc
std::optional<Finding> MemoryPressure(const Signals& s);         // memory_pressure.cc
std::optional<Finding> PeriodicStall(const Signals& s);          // periodic_stall.cc
std::optional<Finding> Retracing(const Signals& s);              // retracing.cc
std::optional<Finding> TfDataBottleneckStage(const Signals& s);  // tfdata_bottleneck_stage.cc
std::optional<Finding> UntracedTime(const Signals& s);      // untraced_time.cc
std::optional<Finding> UnrecordedDeviceWork(const Signals& s);  // unrecorded_device_work.cc

}  // namespace stepdoctor::rules
