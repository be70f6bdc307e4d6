// tfdata_bottleneck_stage: the step waits on tf.data, and one iterator stage does most of the
// blocking work on the slow GetNext calls. Names the stage, its kind, and the change to make.
#include <cmath>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/input_limit_advice.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
namespace {
// `prefetching`: the pipeline prefetches already (AppliedOptimizations::prefetch), so the code
// does not add it again.
Fix FixFor(const TfDataStage& b, bool prefetching) {
  Fix f;
  std::string_view op = b.op;
  const std::string keep_ready = prefetching ? "" : "\nds = ds.prefetch(tf.data.AUTOTUNE)";
  switch (b.kind) {
    case TfDataStageKind::kParallelizable:
      if (op.find("nterleave") != std::string_view::npos || op == "FlatMap") {
        f.summary = "Read and transform files in parallel: interleave with parallel calls instead of " + b.op + ".";
        f.tensorflow =
            "ds = tf.data.Dataset.list_files(pattern, shuffle=True)\n"
            "ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8,\n"
            "                   num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)";
      } else {
        f.summary = "Run the map function in parallel (it runs one element at a time now), and keep batches ready.";
        f.tensorflow =
            "ds = ds.map(parse_and_augment, num_parallel_calls=tf.data.AUTOTUNE,\n"
            "            deterministic=False)   # was: ds.map(parse_and_augment)\n"
            "ds = ds.batch(batch_size)" +
            keep_ready;
      }
      break;
    case TfDataStageKind::kParallel:
      f.summary = b.op + " is already parallel but still too slow: give it more parallelism, make the function "
                         "cheaper, cache what does not change, or move augmentation onto the accelerator.";
      f.tensorflow =
          "ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE)\n"
          "ds = ds.cache()   # after the deterministic, expensive part, if it fits in memory (or cache(path))\n"
          "ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)\n"
          "# or augment on the GPU inside the model: tf.keras.layers.RandomFlip/RandomCrop ...\n"
          "options = tf.data.Options(); options.autotune.cpu_budget = os.cpu_count()\n"
          "ds = ds.with_options(options)";
      break;
    case TfDataStageKind::kSource:
      if (op == "Generator") {
        f.summary = "Dataset.from_generator runs Python under the GIL, one element at a time: write TFRecord shards "
                    "(or use tf.data ops) and read them in parallel.";
      } else {
        f.summary = "Reading " + b.op + " is the limit: read several shards at once, use fewer, larger files "
                    "(TFRecord shards of 100-200 MB instead of many small files), and cache if the data fits.";
      }
      f.tensorflow =
          "files = tf.data.Dataset.list_files(\"gs://bucket/train-*.tfrecord\")   # sharded TFRecords\n"
          "ds = files.interleave(tf.data.TFRecordDataset, cycle_length=16,\n"
          "                      num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
          "ds = ds.cache()   # if it fits in memory: later epochs skip the reads" +
          keep_ready;
      break;
    case TfDataStageKind::kSequential:
      f.summary = b.op + " has no parallel version: do its work in a parallel map instead, vectorise it after "
                         "batching, or move it earlier where it touches less data.";
      f.tensorflow =
          "ds = ds.batch(batch_size, num_parallel_calls=tf.data.AUTOTUNE)   # parallel batching (TF >= 2.3)\n"
          "ds = ds.map(augment_batch, num_parallel_calls=tf.data.AUTOTUNE)  # vectorised: per batch, not per element" +
          keep_ready;
      break;
    default:
      f.summary = "Overlap input with the step and keep batches ready.";
      f.tensorflow = "ds = ds.map(fn, num_parallel_calls=tf.data.AUTOTUNE)" + keep_ready;
      break;
  }
  f.pytorch =
      "# the DataLoader analogue: parallel workers and batches kept ready\n"
      "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=8,\n"
      "                                     pin_memory=True, persistent_workers=True, prefetch_factor=4)";
  return f;
}

}  // namespace

std::optional<Finding> TfDataBottleneckStage(const Signals& sig) {
  if (!sig.tf || !sig.tf->tfdata.present || sig.tf->tfdata.bottleneck < 0) return std::nullopt;
  const TfSignals& s = *sig.tf;
  const TfDataPipeline& p = s.tfdata;
  const TfDataStage& b = p.stages[p.bottleneck];
  if (s.input_exposed_pct < kTfDataInputMinPct || b.share_pct < kTfDataStageMinSharePct) return std::nullopt;

  Finding f;
  f.id = "tfdata_bottleneck_stage";
  f.severity = s.input_exposed_pct >= kTfDataInputHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = s.input_share_pct;
  f.title = fmt::format("tf.data stage {} blocks the input pipeline ({} of its blocking time); the step waits {} on input",
                        b.op, Pct(b.share_pct), Pct(s.input_share_pct));
  // Upper bound: the exposed input wait (the device idle) this stage accounts for disappears.
  f.gain_upper_bound = GainIfRemoved(s.input_exposed_pct * b.share_pct / 100.0);
  f.gain_text = GainText(f.gain_upper_bound, fmt::format("if {} stopped blocking GetNext entirely", b.op).c_str());
  f.evidence.push_back({"bottleneck iterator", b.iterator});
  f.evidence.push_back({"stage kind", TfDataStageKindName(b.kind)});
  f.evidence.push_back({"self time on slow GetNext calls", fmt::format("{} ({} of all stages)", Ms(b.self_ms), Pct(b.share_pct))});
  f.evidence.push_back({"slow GetNext calls", fmt::format("{} of {} (>= {} us), {} in total", p.slow_calls, p.get_next_calls,
                                                          kTfDataSlowGetNextNs / 1000, Ms(p.slow_call_ms))});
  if (b.per_element_ms > 0) f.evidence.push_back({"time per element in this stage", Ms(b.per_element_ms)});
  if (p.elements_per_step > 0) f.evidence.push_back({"elements per step", fmt::format("{:.1f}", p.elements_per_step)});
  if (p.parallelism_needed > 0 && (b.kind == TfDataStageKind::kParallelizable || b.kind == TfDataStageKind::kParallel))
    f.evidence.push_back({"parallel calls needed to keep up (estimate)", fmt::format("{}", p.parallelism_needed)});
  if (s.step_ms > 0)
    f.evidence.push_back({"host wait on input per step", fmt::format("{} of {}", Pct(s.input_share_pct), Ms(s.step_ms))});
  for (size_t i = 0; i < p.stages.size() && i < kTopRowsShown; ++i)
    f.top_events.push_back({p.stages[i].iterator, p.stages[i].self_ms, p.stages[i].events, p.stages[i].share_pct});
  f.fix = FixFor(b, sig.applied && sig.applied->prefetch);
  AddInputLimit(sig, &f);  // where the dataset's storage was probed: storage or CPU, and its fix
  return f;
}

}  // namespace stepdoctor::rules
