// serial_cpu_pipeline: a CPU-only job keeps one core saturated (kOneCoreSaturatedPct to
// kOneCoreCeilingPct of one core) while the machine's other cores idle (below
// kOtherCoresIdlePct): the work, often data loading and preprocessing, runs in one thread.
// With no device to starve, the job is CPU-bound on that core (verdict: compute), not input-bound.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {

std::optional<Finding> SerialCpuPipeline(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kSerialCpu) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  const int cores = r.cores.value_or(0);  // known: kSerialCpu needs one core saturated of two or more
  Finding f;
  f.id = "serial_cpu_pipeline";
  f.severity = cores >= kSerialCpuHighCores ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  // The idle share of the machine's CPU capacity.
  f.share_pct = cores > 0 ? 100.0 * (cores - 1) / cores : 0;
  f.title = fmt::format("the job is CPU-bound on one core: it does all the work while {} other core{} idle{}",
                        cores - 1, cores == 2 ? "" : "s", cores == 2 ? "s" : "");
  f.gain_upper_bound = std::max(1.0, double(cores));
  f.gain_text = fmt::format(
      "up to {:.0f}x on {} cores if the work split perfectly; Amdahl's law (the part that stays serial) gives less",
      f.gain_upper_bound, cores);
  if (r.tree_cpu_mean_pct) f.evidence.push_back({"job's CPU use", Cores(*r.tree_cpu_mean_pct)});
  if (r.tree_cpu_wait_mean_pct && *r.tree_cpu_wait_mean_pct >= kCpuWaitEvidencePct)
    f.evidence.push_back({"job waiting for a CPU (taken by other processes)", Cores(*r.tree_cpu_wait_mean_pct)});
  if (r.other_cores_busy_pct) f.evidence.push_back({"other cores busy (mean)", Pct(*r.other_cores_busy_pct)});
  AddTreeSizeEvidence(r, &f.evidence);
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Run data loading and preprocessing in parallel with the model step, and let the framework use every "
      "core for compute.";
  f.fix.tensorflow =
      "ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)\n"
      "tf.config.threading.set_intra_op_parallelism_threads(0)  # 0 = all cores\n"
      "tf.config.threading.set_inter_op_parallelism_threads(0)\n"
      "# Python preprocessing holds the GIL: express it as tf ops so map() can parallelise it";
  f.fix.pytorch =
      "loader = DataLoader(dataset, batch_size=bs, num_workers=os.cpu_count() - 1,\n"
      "                    persistent_workers=True)  # preprocessing in worker processes\n"
      "torch.set_num_threads(os.cpu_count())  # intra-op threads for the model's own ops\n"
      "print(torch.get_num_threads())         # 1 here means something capped it (OMP_NUM_THREADS?)";
  return f;
}

}  // namespace stepdoctor::rules
