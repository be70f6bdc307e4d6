// gpu_starved_cpu_bound: the GPUs sit mostly idle (< kGpuLowUtilPct) while the job's processes
// keep the CPU busy (most cores, or one core saturated): input preprocessing on the CPU cannot
// feed the GPU.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuStarvedCpuBound(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kGpuStarvedCpu) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  Finding f;
  f.id = "gpu_starved_cpu_bound";
  f.severity = FindingSeverity::kHigh;
  const double util = *r.gpu_util_mean_pct;  // kGpuStarvedCpu is decided on it
  f.share_pct = 100.0 - util;
  const bool saturated = r.cpu_high;  // most cores, or one core flat out
  // How busy the CPU is, as measured: the job's share of the cores, else the machine's CPU.
  const std::string cpu = r.one_core_saturated ? std::string("one core is flat out")
                          : r.tree_cpu_of_cores_pct ? fmt::format("the job keeps {} of the cores busy", Pct(*r.tree_cpu_of_cores_pct))
                          : r.cpu_mean_pct          ? fmt::format("the CPU is {} busy", Pct(*r.cpu_mean_pct))
                                                    : std::string("the CPU is busy");
  f.title = saturated ? fmt::format("the GPU is busy only {} of the time while {}: work on the CPU, most often input "
                                    "preprocessing, holds it back",
                                    Pct(util), cpu)
                      : fmt::format("the GPU is busy {} of the time while the job keeps {:.1f} CPU cores busy: it "
                                    "waits on host-side work",
                                    Pct(util), r.tree_cpu_demand_pct.value_or(0) / 100.0);  // not saturated: a tree
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = fmt::format(
      "up to {:.1f}x if the GPU were kept busy; the real gain stops where the GPU itself becomes the limit, "
      "and GPU utilisation counts any kernel running, not how full the GPU is",
      f.gain_upper_bound);
  f.evidence.push_back({"GPU utilisation", GpuUtilText(r)});
  if (r.tree_cpu_mean_pct) {
    f.evidence.push_back({"job's CPU use (all its processes)", Cores(*r.tree_cpu_mean_pct)});
    if (r.tree_cpu_wait_mean_pct && *r.tree_cpu_wait_mean_pct >= kCpuWaitEvidencePct)
      f.evidence.push_back({"job waiting for a CPU (taken by other processes)", Cores(*r.tree_cpu_wait_mean_pct)});
    if (r.cores && r.tree_cpu_of_cores_pct)
      f.evidence.push_back({"of the machine's cores", fmt::format("{} of {} cores", Pct(*r.tree_cpu_of_cores_pct), *r.cores)});
    AddTreeSizeEvidence(r, &f.evidence);
  } else if (r.cpu_mean_pct) {
    f.evidence.push_back({"machine CPU busy", Pct(*r.cpu_mean_pct)});
  }
  if (r.one_core_saturated)
    f.evidence.push_back({"pattern", "one core saturated: preprocessing runs in a single process or thread"});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary = r.one_core_saturated ? "Preprocess in parallel: the input pipeline runs on one core while the others idle."
                  : saturated ? "Take work off the CPU: cache decoded data, move augmentation to the GPU, or use a "
                                "cheaper decode; more workers only help while cores are free."
                              : "Cores are free: build batches in more worker processes (DataLoader num_workers, "
                                "tf.data num_parallel_calls) so the training loop never waits for one.";
  f.fix.tensorflow =
      "ds = ds.map(decode_and_augment, num_parallel_calls=tf.data.AUTOTUNE)  # parallel, not serial\n"
      "ds = ds.cache()                 # decode once if it fits in memory (or cache(filename))\n"
      "ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)\n"
      "# move augmentation onto the GPU: apply tf.keras.layers.RandomFlip etc. inside the model";
  f.fix.pytorch =
      "loader = DataLoader(dataset, batch_size=bs, num_workers=os.cpu_count() - 1,\n"
      "                    pin_memory=True, persistent_workers=True, prefetch_factor=4)\n"
      "# decode JPEGs on the GPU (torchvision.io.decode_jpeg(data, device='cuda')) or use NVIDIA DALI;\n"
      "# do random crops/flips on GPU tensors after .to('cuda', non_blocking=True)";
  return f;
}

}  // namespace stepdoctor::rules
