// storage_bound: the GPU (if any) and the CPU are both underused while the disk is busy or the
// job waits on I/O (iowait >= kIowaitHighPct, a disk busy >= kDiskUtilHighPct, PSI I/O >=
// kPsiIoHighPct, processes in D state in >= kTreeBlockedHighPct of samples, or the job moving
// >= kTreeIoHighBytesPerS): reading data (or writing checkpoints) is the bottleneck.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> StorageBound(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kStorageBound) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  const bool gpu = r.gpu_util_mean_pct.has_value();
  Finding f;
  f.id = "storage_bound";
  f.severity = FindingSeverity::kHigh;
  // The time the job's compute waits: GPU idle share, or (CPU-only) the share of one core the
  // tree leaves unused, else (no tree sampled) the share of the machine's CPU left idle;
  // kStorageBound without a GPU needs one of the two.
  f.share_pct = gpu ? 100.0 - *r.gpu_util_mean_pct
                    : std::clamp(100.0 - r.tree_cpu_mean_pct.value_or(r.cpu_mean_pct.value_or(0)), 0.0, 100.0);
  f.title = gpu ? fmt::format("the GPU is busy only {} and the CPU is not the limit: the job waits on storage",
                              Pct(*r.gpu_util_mean_pct))
                : "the CPU is mostly idle while the job reads or writes storage: I/O is the bottleneck";
  f.gain_upper_bound = GainIfRemoved(f.share_pct);
  f.gain_text = fmt::format("up to {:.1f}x if I/O were fully overlapped with compute; less when the data must "
                            "come from this disk at its current speed",
                            f.gain_upper_bound);
  if (gpu) AddGpuUtilLine(r, &f.evidence);
  if (r.tree_cpu_mean_pct) f.evidence.push_back({"job's CPU use", Cores(*r.tree_cpu_mean_pct)});
  AddStorageEvidence(r, &f.evidence);
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Read fewer, larger files and overlap reading with compute: shard into TFRecord/WebDataset files, read "
      "shards in parallel, cache on local SSD or in memory, and write checkpoints asynchronously.";
  f.fix.tensorflow =
      "files = tf.data.Dataset.list_files('/data/train-*.tfrecord', shuffle=True)\n"
      "ds = files.interleave(tf.data.TFRecordDataset, cycle_length=16,\n"
      "                      num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
      "ds = ds.cache('/local_ssd/cache')  # or .cache() in memory after the first epoch\n"
      "ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)";
  f.fix.pytorch =
      "# many small files -> shards read sequentially (webdataset), several workers reading in parallel\n"
      "dataset = wds.WebDataset('/data/train-{000000..000999}.tar').decode('pil').to_tuple('jpg', 'cls')\n"
      "loader = DataLoader(dataset, batch_size=bs, num_workers=8, prefetch_factor=8, pin_memory=True)\n"
      "# checkpoints: torch.distributed.checkpoint.async_save(state_dict, checkpoint_id=path)";
  return f;
}

}  // namespace stepdoctor::rules
