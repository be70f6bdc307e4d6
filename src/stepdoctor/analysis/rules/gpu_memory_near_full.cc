// gpu_memory_near_full: a GPU's memory in use peaked at >= kMemoryNearFullPct of its total
// (the same "nearly full" as memory_pressure). Low, with the advice to free what is held, where
// the log's runs show that peak in a run that computed nothing while those that computed stayed
// under it (a framework reserving memory up front), or where the GPU computed in none of the
// samples near full (kNearFullIdleMinSamples or more).
// Not a slowdown by itself (PyTorch's caching allocator keeps freed blocks, so "used" is high
// by design), but the job is one larger batch or sequence away from running out, and near the
// limit the allocator frees and retries, which stalls steps.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {

std::optional<Finding> GpuMemoryNearFull(const Signals& sig) {
  if (!sig.resources) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  const GpuResource* worst = nullptr;
  for (const auto& g : r.gpus)
    if (g.mem_used_peak_pct && *g.mem_used_peak_pct >= kMemoryNearFullPct &&
        (!worst || *g.mem_used_peak_pct > *worst->mem_used_peak_pct))
      worst = &g;
  if (!worst) return std::nullopt;
  Finding f;
  f.id = "gpu_memory_near_full";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 0;  // about headroom, not time
  f.title = fmt::format("GPU {} memory peaked at {} of its capacity", worst->index, Pct(*worst->mem_used_peak_pct));
  f.gain_upper_bound = 1.0;
  f.gain_text = "no direct speed-up: headroom avoids out-of-memory failures and allocator retries, "
                "and lets a larger batch raise throughput";
  if (worst->mem_used_peak_bytes && worst->mem_total_bytes)
    f.evidence.push_back({"peak used / total", fmt::format("{} / {}", GiB(*worst->mem_used_peak_bytes), GiB(*worst->mem_total_bytes))});
  else
    f.evidence.push_back({"peak used", Pct(*worst->mem_used_peak_pct)});
  if (!worst->name.empty()) f.evidence.push_back({"GPU", worst->name});
  f.evidence.push_back({"note", "NVML's 'used' includes memory a framework caches for reuse, so it can sit near "
                                "full without a problem; check the framework's own peak to be sure"});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Find the real peak and make room: mixed precision, activation checkpointing, a smaller micro-batch with "
      "gradient accumulation; in TensorFlow let memory grow instead of reserving it all.";
  f.fix.tensorflow =
      "for gpu in tf.config.list_physical_devices('GPU'):\n"
      "    tf.config.experimental.set_memory_growth(gpu, True)  # allocate as needed, see the real use\n"
      "tf.keras.mixed_precision.set_global_policy('mixed_float16')\n"
      "print(tf.config.experimental.get_memory_info('GPU:0')['peak'])";
  f.fix.pytorch =
      "print(torch.cuda.max_memory_allocated() / 2**30, 'GiB allocated at peak')  # vs. reserved\n"
      "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
      "    loss = model(x)  # half the activation memory\n"
      "# activation checkpointing: torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)\n"
      "# fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  // A log of several runs, only some of them near full: which, and what the others peaked at.
  // Where the full ones ran no work and others computed under full, those runs reserved the
  // memory (a framework taking it all at start): the work did not need it.
  int full_runs = 0, runs_with_memory = 0;
  bool full_runs_idle = true, others_computed = false;
  double others_peak_pct = 0, full_util_mean_pct = 0;
  if (r.gpu_runs && r.gpu_runs->gpu_index == worst->index && worst->mem_total_bytes && *worst->mem_total_bytes > 0) {
    for (const GpuRuns::Run& run : r.gpu_runs->runs) {
      if (!run.mem_peak_bytes) continue;
      ++runs_with_memory;
      const double pct = 100.0 * *run.mem_peak_bytes / *worst->mem_total_bytes;
      if (pct >= kMemoryNearFullPct) {
        ++full_runs;
        full_runs_idle = full_runs_idle && run.util_peak_pct < kUnusedGpuPeakPct;
        full_util_mean_pct = std::max(full_util_mean_pct, run.util_mean_pct);
      } else {
        others_peak_pct = std::max(others_peak_pct, pct);
        others_computed = others_computed || run.util_peak_pct >= kUnusedGpuPeakPct;
      }
    }
  }
  const bool some_runs = full_runs > 0 && full_runs < runs_with_memory;
  const bool reserved_by_idle_run = some_runs && full_runs_idle && others_computed;
  if (some_runs) {
    f.title += fmt::format(" in {} of the log's {} runs (mean utilisation {} there); the others peaked at {}",
                           full_runs, runs_with_memory, Pct(full_util_mean_pct), Pct(others_peak_pct));
    f.evidence.insert(f.evidence.begin() + 1,
                      {"runs near full", fmt::format("{} of {} (a process held the GPU in each, the memory released "
                                                     "between them); the others peaked at {}",
                                                     full_runs, runs_with_memory, Pct(others_peak_pct))});
  }
  if (reserved_by_idle_run) {
    f.severity = FindingSeverity::kLow;
    f.title += fmt::format(", and the full ones ran no work (utilisation never reached {:.0f}%)", kUnusedGpuPeakPct);
  }
  // A GPU that runs nothing yet is full: no model's peak to shrink, but a process holding it
  // (a framework reserving all memory at start, a process left behind).
  const bool unused = worst->unused && worst->util_peak_pct;
  if (unused) f.title += fmt::format(" while it ran no work (utilisation never reached {:.0f}%)", kUnusedGpuPeakPct);
  // Near full only in samples where the GPU computed nothing, whatever it did at other times: a
  // reservation (a framework taking the device at start, a process holding it while it waits or
  // hangs), not work that filled the memory.
  const bool idle_when_full = !unused && !reserved_by_idle_run &&
                              worst->mem_near_full_samples >= kNearFullIdleMinSamples &&
                              worst->util_peak_near_full_pct && *worst->util_peak_near_full_pct < kUnusedGpuPeakPct;
  if (idle_when_full) {
    f.severity = FindingSeverity::kLow;
    f.title += fmt::format(" only while it ran no work (utilisation under {:.0f}% in each of the {} samples near full)",
                           kUnusedGpuPeakPct, worst->mem_near_full_samples);
  }
  // Reserved at once while the GPU computed nothing: a pool taken before the work (a serving
  // engine's KV cache, TensorFlow's or JAX's allocator at start), which NVML counts whole.
  const bool reserved_at_once = !unused && !reserved_by_idle_run && !idle_when_full && worst->reserve_to_bytes;
  if (reserved_at_once) {
    f.severity = FindingSeverity::kLow;
    f.title += fmt::format(", reserved at once while it computed nothing ({} to {} between two samples)",
                           GiB(*worst->reserve_from_bytes), GiB(*worst->reserve_to_bytes));
    f.evidence.insert(f.evidence.begin() + 1,
                      {"reserved at once", fmt::format("{} to {} between two samples, the GPU computing nothing in "
                                                       "either: a pool taken before the work, counted whole by NVML",
                                                       GiB(*worst->reserve_from_bytes), GiB(*worst->reserve_to_bytes))});
  }
  if (unused || reserved_by_idle_run || idle_when_full || reserved_at_once) {
    f.gain_text = "no direct speed-up: the memory is held, not used by work on this GPU; freeing it lets a job "
                  "that computes there fit";
    f.fix.summary =
        "See which process holds the memory (nvidia-smi's process list, or `nvidia-smi --query-compute-apps="
        "pid,used_memory --format=csv`): a framework that reserves all of a GPU at start (TensorFlow without memory "
        "growth, JAX's preallocation, a serving engine's cache pool such as vLLM's gpu_memory_utilization), or a "
        "process left from an earlier run; limit or free it.";
    f.fix.tensorflow =
        "for gpu in tf.config.list_physical_devices('GPU'):\n"
        "    tf.config.experimental.set_memory_growth(gpu, True)  # take memory as needed, not all at start";
    f.fix.pytorch =
        "# a PyTorch process holds what it allocated and cached; in a process that no longer needs the GPU:\n"
        "torch.cuda.empty_cache()\n"
        "# JAX beside it preallocates 75% of the GPU: XLA_PYTHON_CLIENT_PREALLOCATE=false";
  }
  if (reserved_at_once)
    f.gain_text = "no direct speed-up: the figure is a pool reserved before the work, not what the work needs; the "
                  "framework's own peak says how full it is";
  return f;
}

}  // namespace stepdoctor::rules
