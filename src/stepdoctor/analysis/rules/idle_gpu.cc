// idle_gpu: a GPU whose utilisation never reaches kUnusedGpuPeakPct (or, in a log without
// utilisation, whose memory never reaches kNoProcessMemBytes) while another GPU in the same
// samples runs work: the job was meant for, or given, more GPUs than it uses. Names each
// unused GPU and what usually leaves one out (CUDA_VISIBLE_DEVICES, a single-process launch of
// a DDP or tf.distribute job, a device_map that places nothing there).
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {
std::optional<Finding> IdleGpu(const Signals& sig) {
  if (!sig.resources) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  std::vector<const GpuResource*> unused;
  for (const auto& g : r.gpus)
    if (g.unused) unused.push_back(&g);
  if (unused.empty() || r.gpus_in_use == 0) return std::nullopt;  // every GPU idle: mostly_idle or gpus_unused
  Finding f;
  f.id = "idle_gpu";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 100.0 * double(unused.size()) / double(r.gpus.size());  // of the GPUs sampled
  std::string names;
  for (size_t i = 0; i < unused.size(); ++i) names += fmt::format("{}{}", i ? ", " : "", unused[i]->index);
  const bool by_memory = std::none_of(unused.begin(), unused.end(), [](const GpuResource* g) { return g->util_mean_pct.has_value(); });
  f.title = fmt::format("GPU{} {} sat idle ({}) while {} other GPU{} worked", unused.size() == 1 ? "" : "s", names,
                        by_memory ? fmt::format("no process held memory there: never {}", MemText(kNoProcessMemBytes))
                                  : fmt::format("utilisation never reached {:.0f}%", kUnusedGpuPeakPct),
                        r.gpus_in_use, r.gpus_in_use == 1 ? "" : "s");
  f.gain_upper_bound = double(r.gpus.size()) / double(r.gpus_in_use);
  // Models differ between the GPUs in use and the idle ones: the bound counts GPUs, not speed.
  std::string models;
  for (const auto& g : r.gpus)
    if (!g.name.empty() && models.find(g.name) == std::string::npos) models += (models.empty() ? "" : ", ") + g.name;
  const bool mixed = models.find(", ") != std::string::npos;
  // Synchronous data parallelism steps at its slowest replica's pace, with the batch the smallest
  // memory holds: mixed models gain less than their count.
  const std::string mixed_note =
      mixed ? fmt::format("; the models differ ({}), and synchronous data parallelism runs at the slowest one's pace "
                          "with the batch the smallest memory holds",
                          models)
            : "";
  f.gain_text = fmt::format(
      "up to {:.1f}x throughput if the job spread over all {} GPUs and scaled perfectly; less where the model, "
      "batch or communication does not{}",
      f.gain_upper_bound, r.gpus.size(), mixed_note);
  // The GPUs in use wait most of the time themselves: more GPUs fed the same way wait as much.
  if (r.gpu_util_mean_pct && *r.gpu_util_mean_pct < kGpuLowUtilPct) {
    f.severity = FindingSeverity::kLow;
    f.gain_text = fmt::format("little until the GPU{} in use {} kept busy: {} only {} of the time, so more GPUs fed "
                              "the same way would wait as much (at best {:.1f}x, spread over all {} and scaled "
                              "perfectly{})",
                              r.gpus_in_use == 1 ? "" : "s", r.gpus_in_use == 1 ? "is" : "are",
                              r.gpus_in_use == 1 ? "it runs" : "they run", Pct(*r.gpu_util_mean_pct),
                              f.gain_upper_bound, r.gpus.size(), mixed_note);
  }
  for (const GpuResource* g : unused) {
    if (!g->util_mean_pct) {  // told unused by its memory (ResourceSignals::gpus)
      f.evidence.push_back({fmt::format("GPU {}", g->index),
                            fmt::format("no utilisation sampled; {}: no process holds memory there", GpuMemoryAndPowerText(*g))});
      continue;
    }
    std::string mem = g->mem_used_peak_bytes && g->mem_total_bytes
                          ? fmt::format(", memory used peak {} of {}", MemText(*g->mem_used_peak_bytes), MemText(*g->mem_total_bytes))
                          : "";
    std::string held = MemoryHeld(*g) ? ": a process holds memory there but runs nothing (a rank waiting, or weights "
                                        "placed but never computed on)"
                       : MemoryHeldBriefly(*g)
                           ? fmt::format(": memory passed {} in only {} of {} samples", MemText(kHeldMemoryBytes),
                                         g->mem_held_samples, g->mem_samples)
                           : "";
    f.evidence.push_back({fmt::format("GPU {}", g->index),
                          fmt::format("mean {:.1f}%, peak {:.0f}%{}{}", *g->util_mean_pct, *g->util_peak_pct, mem, held)});
  }
  if (r.gpu_util_mean_pct) AddGpuUtilLine(r, &f.evidence);
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary = fmt::format(
      "Check that the job is launched on every GPU it was given: CUDA_VISIBLE_DEVICES (and the scheduler's GPU "
      "request) lists the GPUs it should use, a DDP job is started with one process per GPU (torchrun "
      "--nproc_per_node={}), a tf.distribute strategy sees all GPUs, and a device_map spreads the model; or "
      "request only the GPUs the job uses.",
      r.gpus.size());
  f.fix.tensorflow =
      "print(tf.config.list_physical_devices('GPU'))   # all the GPUs you expect?\n"
      "strategy = tf.distribute.MirroredStrategy()      # replicas on every visible GPU\n"
      "print(strategy.num_replicas_in_sync)\n"
      "with strategy.scope(): model = build_model()";
  f.fix.pytorch = fmt::format(
      "# one process per GPU, not `python train.py`:\n"
      "torchrun --nproc_per_node={} train.py\n"
      "print(torch.cuda.device_count(), os.environ.get('CUDA_VISIBLE_DEVICES'))\n"
      "model = DDP(model.to(local_rank), device_ids=[local_rank])\n"
      "# Hugging Face: device_map='auto' spreads a large model over the visible GPUs",
      r.gpus.size());
  return f;
}

}  // namespace stepdoctor::rules
