// The sorted list of rules.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor {

const std::vector<RuleDef>& AllRules() {
  static const std::vector<RuleDef> kRules = {
      {"cold_start", "the only window analysed is one cold first pass (one-off start-up calls)", &rules::ColdStart},
      {"collective_bound", "collectives take a large share of the step without overlapping compute",
       &rules::CollectiveBound, kNeedsDeviceActivity},
      {"compute_bound", "the device is busy most of the step: name the next levers", &rules::ComputeBound, kNeedsDeviceActivity},
      {"cpu_saturated", "a CPU-only job keeps most cores busy (or waits for them)", &rules::CpuSaturated},
      {"device_activity_missing", "the job used an accelerator but the trace holds no device work",
       &rules::DeviceActivityMissing},
      {"eager_overhead", "TensorFlow ops run eagerly, op by op, for much of the step", &rules::EagerOverhead},
      {"gpu_memory_near_full", "a GPU's memory in use peaks near its capacity", &rules::GpuMemoryNearFull},
      {"gpu_partly_idle", "GPUs busy on average but idle for a good part of the time (no profile)",
       &rules::GpuPartlyIdle},
      {"gpu_starved_cpu_bound", "GPUs mostly idle while the job's CPU is saturated: preprocessing-bound",
       &rules::GpuStarvedCpuBound},
      {"gpu_well_fed", "the GPUs in use are kept busy (no profile): their own work sets the pace", &rules::GpuWellFed},
      {"host_bound", "the device idles while the host launches kernels or runs framework code", &rules::HostBound, kNeedsDeviceActivity},
      {"idle_gpu", "a GPU sits unused while others work", &rules::IdleGpu},
      {"input_bound", "the step waits on the input pipeline", &rules::InputBound},
      {"kernel_launch_bound", "the device waits while the host launches kernels", &rules::KernelLaunchBound, kNeedsDeviceActivity},
      {"low_gpu_utilisation", "GPUs mostly idle and nothing on the host explains it", &rules::LowGpuUtilisation},
      {"low_precision", "a TensorCore GPU runs mostly 32-bit kernels", &rules::LowPrecision, kNeedsDeviceActivity},
      {"memory_pressure", "device memory in use peaks near capacity (allocator stats)", &rules::MemoryPressure},
      {"mostly_idle", "the job neither computes nor does I/O: it waits on something else", &rules::MostlyIdle},
      {"periodic_stall", "event files show long gaps every N steps: checkpoint or evaluation cost",
       &rules::PeriodicStall},
      {"periodic_utilisation_dips", "utilisation drops on a schedule: checkpoints, evaluation",
       &rules::PeriodicUtilisationDips},
      {"rank_imbalance", "one rank of a distributed job is busier per step than the others: a straggler",
       &rules::RankImbalance, kNeedsDeviceActivity},
      {"retracing", "a tf.function is traced again and again", &rules::Retracing},
      {"serial_cpu_pipeline", "a CPU-only job saturates one core while the others idle", &rules::SerialCpuPipeline},
      {"step_time_outliers", "slow steps that stand out, and whether they recur with a period",
       &rules::StepTimeOutliers},
      {"storage_bound", "GPU and CPU underused while the job waits on disk", &rules::StorageBound},
      {"tfdata_bottleneck_stage", "one tf.data stage blocks the input pipeline", &rules::TfDataBottleneckStage},
  };
  return kRules;
}

}  // namespace stepdoctor
