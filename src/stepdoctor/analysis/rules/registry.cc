// The sorted list of rules: each rule's one definition (id, summary, the bottleneck its findings
// name in the verdict, what it needs from the input). The verdict, the docs check and the tests
// read it from here.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor {

const std::vector<RuleDef>& AllRules() {
  using B = Bottleneck;
  static const std::vector<RuleDef> kRules = {
      // Steady-state steps are what the input lacks: a cold pass says little about them.
      {.id = "cold_start",
       .summary = "the only window analysed is one cold first pass (one-off start-up calls)",
       .evaluate = &Infallible<rules::ColdStart>,
       .input_gap = true},
      {.id = "collective_bound",
       .summary = "collectives take a large share of the step without overlapping compute",
       .bottleneck = B::kCommunication,
       .evaluate = &Infallible<rules::CollectiveBound>,
       .needs = kNeedsDeviceActivity},
      {.id = "compute_bound",
       .summary = "the device is busy most of the step: name the next levers",
       .bottleneck = B::kDeviceCompute,
       .evaluate = &Infallible<rules::ComputeBound>,
       .needs = kNeedsDeviceActivity},
      // Copies are neither the host's work nor the device's compute: no bottleneck is named.
      {.id = "copy_bound",
       .summary = "copies between host and device hold much of the step while the device computes little",
       .evaluate = &Infallible<rules::CopyBound>,
       .needs = kNeedsDeviceActivity},
      // A CPU-only job: the CPU is the device.
      {.id = "cpu_saturated",
       .summary = "a CPU-only job keeps most cores busy (or waits for them)",
       .bottleneck = B::kDeviceCompute,
       .evaluate = &Infallible<rules::CpuSaturated>},
      {.id = "device_activity_missing",
       .summary = "the job used an accelerator but the trace holds no device work",
       .evaluate = &Infallible<rules::DeviceActivityMissing>,
       .input_gap = true},
      {.id = "eager_overhead",
       .summary = "TensorFlow ops run eagerly, op by op, for much of the step",
       .bottleneck = B::kHost,
       .evaluate = &Infallible<rules::EagerOverhead>},
      {.id = "gpu_memory_near_full",
       .summary = "a GPU's memory in use peaks near its capacity",
       .evaluate = &Infallible<rules::GpuMemoryNearFull>},
      // A GPU log cannot say what the GPU waits on, so no bottleneck is named.
      {.id = "gpu_partly_idle",
       .summary = "GPUs busy on average but idle for a good part of the time (no profile)",
       .evaluate = &Infallible<rules::GpuPartlyIdle>},
      // GPU samples show it idle while the CPU works: the host, or the input where worker
      // processes do that work (the finding says which).
      {.id = "gpu_starved_cpu_bound",
       .summary = "GPUs mostly idle while the job's CPU is busy: host- or preprocessing-bound",
       .bottleneck = B::kHost,
       .evaluate = &Infallible<rules::GpuStarvedCpuBound>},
      // A GPU log holding memory or power but no utilisation: no bottleneck can be named.
      {.id = "gpu_utilisation_not_logged",
       .summary = "GPU samples without utilisation (memory or power only) that do not show the GPUs unused",
       .evaluate = &Infallible<rules::GpuUtilisationNotLogged>},
      // A GPU log: the GPUs busy, their input keeping up. Utilisation counts any resident kernel
      // (collective waits too), so no bottleneck is named; the verdict states the note as it is.
      {.id = "gpu_well_fed",
       .summary = "the GPUs in use are kept busy (no profile): what bounds them needs a trace",
       .evaluate = &Infallible<rules::GpuWellFed>},
      // Nothing ran on the GPUs: not starved (no bottleneck), unused.
      {.id = "gpus_unused",
       .summary = "GPU samples in which no GPU ran work (utilisation, or memory where there is none)",
       .evaluate = &Infallible<rules::GpusUnused>},
      // Without device records it judges only the host's own CPU work, a floor on the step.
      {.id = "host_bound",
       .summary = "the device idles while the host launches kernels or runs framework code",
       .bottleneck = B::kHost,
       .evaluate = &Infallible<rules::HostBound>},
      {.id = "idle_gpu", .summary = "a GPU sits unused while others work", .evaluate = &Infallible<rules::IdleGpu>},
      {.id = "input_bound",
       .summary = "the step waits on the input pipeline",
       .bottleneck = B::kInput,
       .evaluate = &Infallible<rules::InputBound>},
      {.id = "kernel_launch_bound",
       .summary = "the device waits while the host launches kernels",
       .bottleneck = B::kHost,
       .evaluate = &Infallible<rules::KernelLaunchBound>,
       .needs = kNeedsDeviceActivity},
      {.id = "low_gpu_utilisation",
       .summary = "GPUs mostly idle and nothing on the host explains it",
       .evaluate = &Infallible<rules::LowGpuUtilisation>},
      {.id = "low_precision",
       .summary = "a TensorCore GPU runs mostly 32-bit kernels",
       .evaluate = &Infallible<rules::LowPrecision>,
       .needs = kNeedsDeviceActivity},
      // A memory timeline: what the tensors held, not step time, so no bottleneck is named.
      {.id = "memory_composition",
       .summary = "what a PyTorch memory timeline's tensors held at its peak, and whether it grows between iterations",
       .evaluate = &Infallible<rules::MemoryComposition>},
      {.id = "memory_pressure",
       .summary = "device memory in use peaks near capacity (allocator stats)",
       .evaluate = &Infallible<rules::MemoryPressure>},
      {.id = "mostly_idle",
       .summary = "the job neither computes nor does I/O: it waits on something else",
       .evaluate = &Infallible<rules::MostlyIdle>},
      {.id = "periodic_stall",
       .summary = "event files show long gaps every N steps: checkpoint or evaluation cost",
       .evaluate = &Infallible<rules::PeriodicStall>},
      {.id = "periodic_utilisation_dips",
       .summary = "utilisation drops on a schedule: checkpoints, evaluation",
       .evaluate = &Infallible<rules::PeriodicUtilisationDips>},
      // The fast ranks wait in their collectives for the straggler.
      {.id = "rank_imbalance",
       .summary = "one rank of a distributed job is busier per step than the others: a straggler",
       .bottleneck = B::kCommunication,
       .evaluate = &Infallible<rules::RankImbalance>,
       .needs = kNeedsDeviceActivity | kNeedsRanks},
      {.id = "retracing",
       .summary = "a tf.function is traced again and again",
       .bottleneck = B::kHost,
       .evaluate = &Infallible<rules::Retracing>},
      // A CPU-only job bound by one core: no device is starved, so the CPU itself is the limit.
      {.id = "serial_cpu_pipeline",
       .summary = "a CPU-only job saturates one core while the others idle",
       .bottleneck = B::kDeviceCompute,
       .evaluate = &Infallible<rules::SerialCpuPipeline>},
      {.id = "step_time_outliers",
       .summary = "slow steps that stand out, and whether they recur with a period",
       .evaluate = &Infallible<rules::StepTimeOutliers>},
      {.id = "storage_bound",
       .summary = "GPU and CPU underused while the job waits on disk",
       .bottleneck = B::kInput,
       .evaluate = &Infallible<rules::StorageBound>},
      // The ranks' collectives matched and aligned: the one the others wait for.
      {.id = "straggler",
       .summary = "one rank arrives last at the collectives and the others wait for it",
       .bottleneck = B::kCommunication,
       .evaluate = &Infallible<rules::Straggler>,
       .needs = kNeedsRanks},
      {.id = "tfdata_bottleneck_stage",
       .summary = "one tf.data stage blocks the input pipeline",
       .bottleneck = B::kInput,
       .evaluate = &Infallible<rules::TfDataBottleneckStage>},
      // The device's work is missing from the record: names no bottleneck, says what to record.
      {.id = "unrecorded_device_work",
       .summary = "the host waits on the device while the trace shows the device idle: its work is not recorded",
       .evaluate = &Infallible<rules::UnrecordedDeviceWork>},
      // Host time with nothing recorded names no bottleneck: what runs there is unknown.
      {.id = "untraced_time",
       .summary = "much of each step is host time with nothing recorded",
       .evaluate = &Infallible<rules::UntracedTime>},
  };
  return kRules;
}

}  // namespace stepdoctor
