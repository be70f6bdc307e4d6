// gpus_unused: a GPU log (or GPU samples beside a host that explains nothing) in which no GPU
// ran work: utilisation never reached kUnusedGpuPeakPct on any GPU, or, in a log without a
// utilisation column, no GPU ever held kNoProcessMemBytes (no CUDA context, so no kernels).
// The job ran elsewhere, had not started, or waits with its memory allocated; not starved.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {

std::optional<Finding> GpusUnused(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kGpuUnused) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  const bool util = std::any_of(r.gpus.begin(), r.gpus.end(), [](const GpuResource& g) { return g.util_mean_pct.has_value(); });
  double mem_peak = 0, mem_total = 0, util_peak = 0;
  bool held = false, brief = false;  // a process sits on a GPU without running kernels; or passed through
  int brief_samples = 0, samples = 0;
  for (const auto& g : r.gpus) {
    mem_peak = std::max(mem_peak, g.mem_used_peak_bytes.value_or(0));
    mem_total = std::max(mem_total, g.mem_total_bytes.value_or(0));  // 0: no GPU states a total
    util_peak = std::max(util_peak, g.util_peak_pct.value_or(0));
    held = held || MemoryHeld(g);
    if (MemoryHeldBriefly(g) && !brief) brief = true, brief_samples = g.mem_held_samples, samples = g.mem_samples;
  }
  brief = brief && !held;
  double held_sum = 0;  // over the GPUs that hold memory, each at its peak
  int holding = 0;
  for (const auto& g : r.gpus)
    if (MemoryHeld(g)) held_sum += g.mem_used_peak_bytes.value_or(0), ++holding;
  const std::string memory_note =
      held && holding > 1
          ? fmt::format(", yet {} GPUs hold memory (up to {} each, {} in all): processes hold them and launch nothing", holding,
                        MemText(mem_peak), MemText(held_sum))
      : held  ? fmt::format(", yet {} of memory is held: a process holds the GPU and launches nothing", MemText(mem_peak))
      : brief ? fmt::format("; memory passed {} in only {} of {} samples (peak {}): a process touched the GPU and "
                            "left, or had not started",
                            MemText(kHeldMemoryBytes), brief_samples, samples, MemText(mem_peak))
              : "";
  const std::string gpus = r.gpus.size() == 1 ? "the GPU" : fmt::format("the {} GPUs", r.gpus.size());
  Finding f;
  f.id = "gpus_unused";
  // A short log with no process on any GPU may end before the job reached the GPU.
  const bool short_log = !held && (r.times_known ? r.window_s < kShortUnusedLogS : r.samples < kShortUnusedLogSamples);
  f.severity = short_log ? FindingSeverity::kLow : FindingSeverity::kHigh;
  f.share_pct = 100.0;
  const char* their = r.gpus.size() == 1 ? "its" : "their";
  std::string memory = mem_total > 0 ? fmt::format("{} of {} {}", MemText(mem_peak), their, MemText(mem_total))
                                     : fmt::format("{} of memory", MemText(mem_peak));
  f.title = util ? fmt::format("no GPU ran work: utilisation of {} sampled never reached {:.0f}% (peak {:.1f}%){}", gpus,
                               kUnusedGpuPeakPct, util_peak, memory_note)
               : fmt::format("no GPU ran work: {} sampled never held more than {}, so no process ran on {} (the "
                             "log has no utilisation column)",
                             gpus, memory, r.gpus.size() == 1 ? "it" : "them");
  if (short_log)
    f.title += r.times_known ? fmt::format("; the log is {:.0f} s long: the job may not have reached the GPU before it ended",
                                           r.window_s)
                             : fmt::format("; the log holds {} samples {}: the job may not have reached the GPU "
                                           "before it ended",
                                           r.samples, r.one_stamp ? "stamped with one time" : "with no times");
  f.gain_upper_bound = 1.0;
  f.gain_text = "unknown: the log shows no GPU work to speed up; first make the job use the GPUs it was given";
  if (util) f.evidence.push_back({"GPU utilisation", GpuUtilText(r)});
  else f.evidence.push_back({"GPU utilisation", "not in the log"});
  for (size_t i = 0; i < r.gpus.size() && i < 8; ++i)
    if (std::string s = GpuMemoryAndPowerText(r.gpus[i]); !s.empty())
      f.evidence.push_back({fmt::format("GPU {}", r.gpus[i].index), s});
  if (r.gpus.size() > 8) f.evidence.push_back({"GPUs", fmt::format("{} more alike", r.gpus.size() - 8)});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      held ? "A process holds GPU memory but launches no kernels: see what it waits on (py-spy dump --pid PID): data "
             "loading before the first step, a collective waiting for another rank, or a CPU-side loop."
      : short_log
          ? "Log the whole run (nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv -l 1 "
            "in the background until the job ends) and check that the job uses the GPUs: the framework sees them "
            "(CUDA_VISIBLE_DEVICES, the scheduler's GPU request) and the model and batches are moved to the GPU."
           : "Check that the job ran on these GPUs while the log was taken: the framework sees them "
             "(CUDA_VISIBLE_DEVICES, the scheduler's GPU request), the model and batches are moved to the GPU, and the "
             "log covers the training run, not the time before or after it.";
  f.fix.tensorflow =
      "print(tf.config.list_physical_devices('GPU'))  # empty: TensorFlow runs on the CPU\n"
      "tf.debugging.set_log_device_placement(True)     # where each op runs";
  f.fix.pytorch =
      "print(torch.cuda.is_available(), torch.cuda.device_count(), os.environ.get('CUDA_VISIBLE_DEVICES'))\n"
      "model = model.to('cuda'); x, y = x.to('cuda', non_blocking=True), y.to('cuda', non_blocking=True)";
  return f;
}

}  // namespace stepdoctor::rules
