// gpu_starved_cpu_bound: the GPUs sit mostly idle (< kGpuLowUtilPct) while the job's processes
// keep the CPU busy (most cores, or one core saturated): work on the CPU cannot feed the GPU.
// Samples alone cannot say which work: the input where the sampled tree spreads it across
// processes past one core (DataLoader workers, tf.data's threads in a pool of processes), else
// the host (the training loop's own Python, or loading in the main process; a machine-wide CPU
// figure says nothing about whose work it is).
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
  const bool workers = r.tree_procs_max && *r.tree_procs_max >= 2 && r.tree_cpu_demand_pct &&
                       *r.tree_cpu_demand_pct > kOneCoreCeilingPct;
  f.bottleneck = workers ? Bottleneck::kInput : Bottleneck::kHost;
  const char* what = workers ? "work on the CPU, spread over the job's processes as input workers do, holds it back"
                             : "work on the CPU holds it back: input preprocessing or the training loop itself "
                               "(the samples cannot tell which; a profile can)";
  // How busy the CPU is, as measured: the job's share of the cores, else the machine's CPU.
  const std::string cpu = r.one_core_saturated ? std::string("one core is flat out")
                          : r.tree_cpu_of_cores_pct ? fmt::format("the job keeps {} of the cores busy", Pct(*r.tree_cpu_of_cores_pct))
                          : r.cpu_mean_pct          ? fmt::format("the machine's CPU is {} busy", Pct(*r.cpu_mean_pct))
                                                    : std::string("the CPU is busy");
  f.title = saturated ? fmt::format("the GPU is busy only {} of the time while {}: {}", Pct(util), cpu, what)
                      : fmt::format("the GPU is busy {} of the time while the job keeps {:.1f} CPU cores busy: it "
                                    "waits on host-side work",
                                    Pct(util), r.tree_cpu_demand_pct.value_or(0) / 100.0);  // not saturated: a tree
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = fmt::format(
      "up to {:.1f}x if the GPU were kept busy; the real gain stops where the GPU itself becomes the limit, "
      "and GPU utilisation counts any kernel running, not how full the GPU is",
      f.gain_upper_bound);
  AddGpuUtilLine(r, &f.evidence);
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
  if (!workers)
    f.fix.summary = r.one_core_saturated
                        ? "One core is flat out while the others idle. If it loads data in the training process, build "
                          "batches in worker processes; if it is the loop's own Python, compile or graph the step. "
                          "A profile (torch.profiler, tf.profiler) of a few steps says which."
                        : saturated
                              ? "The CPU, not the GPU, sets the pace. A profile (torch.profiler, tf.profiler) of a few "
                                "steps says whether it is input preprocessing (cache decoded data, cheaper augmentation) "
                                "or the loop itself (compile the step, fewer host syncs, larger batches)."
                              : "Cores are free, yet the CPU sets the pace. A profile (torch.profiler, tf.profiler) of a "
                                "few steps says whether it is input preprocessing in the training process (build batches "
                                "in DataLoader workers, tf.data num_parallel_calls) or the loop itself (compile the "
                                "step, fewer host syncs, larger batches).";
  else
    f.fix.summary = saturated ? "Take work off the CPU: cache decoded data, move augmentation to the GPU, or use a "
                                "cheaper decode; more workers only help while cores are free."
                              : "Cores are free: build batches in more worker processes (DataLoader num_workers, "
                                "tf.data num_parallel_calls) so the training loop never waits for one.";
  if (!workers) {
    // Which CPU work it is decides the fix: profile first.
    f.fix.tensorflow =
        "tf.profiler.experimental.start('logs/profile')   # a few steps, then: stepdoctor diagnose logs/profile\n"
        "for step in range(5):\n"
        "    train_step(next(it))\n"
        "tf.profiler.experimental.stop()";
    f.fix.pytorch =
        "from torch.profiler import profile, schedule, tensorboard_trace_handler, ProfilerActivity\n"
        "with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
        "             schedule=schedule(wait=1, warmup=1, active=5),\n"
        "             on_trace_ready=tensorboard_trace_handler('./prof')) as prof:\n"
        "    for step, batch in zip(range(7), loader):\n"
        "        train_step(batch)\n"
        "        prof.step()   # then: stepdoctor diagnose ./prof";
    return f;
  }
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
