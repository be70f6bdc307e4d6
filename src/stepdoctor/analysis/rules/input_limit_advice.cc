#include "stepdoctor/analysis/rules/input_limit_advice.h"

#include <fmt/format.h>

#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
namespace {

std::string Bytes(double b) {
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string Readers(int n) { return fmt::format("{} reader{}", n, n == 1 ? "" : "s"); }

// The probe's best figure with more readers than the job uses, where it beats the job's.
const IoBenchPhase* MoreReadersFaster(const InputLimitSignals& s) {
  const IoBenchPhase* best = nullptr;
  for (const auto& p : s.storage->phases)
    if (p.kind == s.phase->kind && p.readers > s.phase->readers && p.mb_per_s > s.phase->mb_per_s &&
        (!best || p.mb_per_s > best->mb_per_s))
      best = &p;
  return best;
}

void Evidence(const InputLimitSignals& s, InputLimit limit, Finding* f) {
  const IoBenchReport& st = *s.storage;
  const InputDemand& d = s.demand;
  std::string verdict =
      limit == InputLimit::kStorage ? fmt::format("storage: it delivers {:.2f}x what steps without input wait read "
                                                  "(under {:.1f}x)", s.headroom, kStorageHeadroomFactor)
      : limit == InputLimit::kCpu   ? fmt::format("CPU (decode, augment, collate): storage delivers {:.2f}x what steps "
                                                  "without input wait read (at least {:.1f}x)", s.headroom, kStorageHeadroomFactor)
      : !s.phase ? std::string("unknown: the probe measured nothing on the data's read path")
      : st.read_path == kPhaseSequential && s.bytes_per_sample <= 0
          ? std::string("unknown: the data is in large files and the bytes a sample takes are not known (give --bytes-per-sample)")
          : std::string("unknown: the trace does not say how many samples a step reads (no shapes on the batch's copy: "
                        "record_shapes=True shows them; or give --samples-per-step, the batch size)");
  f->evidence.push_back({"input limit", verdict});
  if (s.phase) {
    std::string rate = st.read_path == kPhaseSmallFiles
                           ? fmt::format("{:.0f} files/s, {:.1f} MB/s", s.phase->files_per_s, s.phase->mb_per_s)
                           : fmt::format("{:.1f} MB/s sequential", s.phase->mb_per_s);
    f->evidence.push_back({"storage under " + st.path + " (probed)",
                           fmt::format("{} with {}, {} ({} files, mean {})", rate, Readers(s.phase->readers),
                                       st.cold ? "cold" : "warm: page cache not dropped", st.files,
                                       Bytes(st.read_path == kPhaseSmallFiles ? st.mean_small_file_bytes : st.mean_file_bytes))});
  }
  f->evidence.push_back({"readers the job uses", fmt::format("{}: {}", s.readers, s.readers_source)});
  if (d.samples_per_step > 0 && d.step_ms > 0)
    f->evidence.push_back({"the job reads", fmt::format("{:.0f} samples/s now ({:.0f} a step x {:.2f} steps/s); {:.0f} "
                                                        "samples/s for steps without input wait",
                                                        d.consumed_samples_per_s, d.samples_per_step, 1000.0 / d.step_ms,
                                                        d.needed_samples_per_s)});
  if (!d.samples_from.empty()) f->evidence.push_back({"samples a step (from the trace)", d.samples_from});
  if (d.consumed_mb_per_s > 0)
    f->evidence.push_back({"the job's reads (live samples)", fmt::format("{:.1f} MB/s now; {:.1f} MB/s for steps without "
                                                                         "input wait", d.consumed_mb_per_s, d.needed_mb_per_s)});
  if (s.bytes_per_sample > 0)
    f->evidence.push_back({"bytes per sample", s.bytes_estimated ? fmt::format("{} (estimate: the mean file size under {}; "
                                                                               "the trace does not record it)",
                                                                               Bytes(s.bytes_per_sample), st.path)
                                                                 : Bytes(s.bytes_per_sample) + " (given)"});
  if (s.storage_ms_per_step > 0)
    f->evidence.push_back({"reading one step's samples", fmt::format("{} at {} of the {} the step waits on input",
                                                                     Ms(s.storage_ms_per_step), Readers(s.phase->readers),
                                                                     Ms(d.input_wait_ms))});
  if (s.tfdata_source_share_pct >= 0)
    f->evidence.push_back({"tf.data reading stages", fmt::format("{} of the pipeline's blocking self time (the rest is "
                                                                 "transformations: CPU)", Pct(s.tfdata_source_share_pct))});
  if (s.tree_cpu_pct)
    f->evidence.push_back({"the job's CPU (live samples)",
                           s.cores ? fmt::format("{:.1f} of {} cores", *s.tree_cpu_pct / 100, *s.cores)
                                   : fmt::format("{:.1f} cores", *s.tree_cpu_pct / 100)});
}

void StorageFix(const InputLimitSignals& s, Finding* f) {
  const bool small = s.storage->read_path == kPhaseSmallFiles;
  const IoBenchPhase* more = MoreReadersFaster(s);
  f->fix.summary = fmt::format("Storage is the limit: at {} it delivers {:.2f}x what steps without input wait read. ",
                               Readers(s.phase->readers), s.headroom);
  if (more)
    f->fix.summary += fmt::format("Read in parallel: {} delivered {:.1f} MB/s against {:.1f} MB/s. ", Readers(more->readers),
                                  more->mb_per_s, s.phase->mb_per_s);
  f->fix.summary += small ? "Pack the small files into TFRecord shards (stepdoctor tfrecord pack DIR -o OUT) and read "
                            "them with parallel reads; cache what fits in memory or on local disk."
                          : "Cache what fits (memory or local disk), or move the data to faster storage.";
  f->fix.tensorflow =
      std::string(small ? "# stepdoctor tfrecord pack DIR -o shards --shard-size 128MB, then:\n" : "") +
      "files = tf.data.Dataset.list_files(\"shards/data-*.tfrecord\", shuffle=True)\n"
      "ds = files.interleave(tf.data.TFRecordDataset, cycle_length=16,\n"
      "                      num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
      "ds = ds.cache()   # or ds.cache('/local_ssd/cache'): later epochs skip the storage\n"
      "ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size).prefetch(tf.data.AUTOTUNE)";
  f->fix.pytorch =
      "# more reads in flight: each worker process reads on its own\n"
      "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=16,\n"
      "                                     prefetch_factor=8, pin_memory=True, persistent_workers=True)\n" +
      std::string(small ? "# fewer, larger files: stepdoctor tfrecord pack DIR -o shards, read as an IterableDataset"
                        : "# cache: copy the data to local disk (or memory) once per job");
}

void CpuFix(const Signals& sig, const InputLimitSignals& s, Finding* f) {
  const bool workers = sig.applied && sig.applied->loader_workers;
  f->fix.summary = fmt::format("The CPU is the limit, not storage: storage delivers {:.2f}x what steps without input wait "
                               "read. Decode and augment in {}parallel workers, make each sample cheaper (decode once and "
                               "cache, augment on the GPU), and prefetch.",
                               s.headroom, workers ? "more " : "");
  f->fix.tensorflow =
      "ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE)   # decode in parallel\n"
      "ds = ds.cache()   # decoded samples, if they fit: later epochs skip decoding\n"
      "ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
      "ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)";
  f->fix.pytorch =
      std::string(workers ? "# workers are in use: raise num_workers while cores are idle\n" : "") +
      "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=os.cpu_count(),\n"
      "                                     pin_memory=True, persistent_workers=True, prefetch_factor=4)\n"
      "# cheaper items: cache decoded samples, or augment on the GPU after the copy";
}

}  // namespace

InputLimit InputLimitOf(const InputLimitSignals& s) {
  if (s.headroom <= 0 || !s.phase) return InputLimit::kUnknown;
  return s.headroom < kStorageHeadroomFactor ? InputLimit::kStorage : InputLimit::kCpu;
}

void AddInputLimit(const Signals& sig, Finding* f) {
  if (!sig.input_limit || !sig.input_limit->storage) return;
  const InputLimitSignals& s = *sig.input_limit;
  InputLimit limit = InputLimitOf(s);
  Evidence(s, limit, f);
  // The same for machines (JSON findings[].figures): only what was measured or given.
  if (limit != InputLimit::kUnknown) f->figures.emplace_back("storage_limited", limit == InputLimit::kStorage ? 1 : 0);
  if (s.headroom > 0) f->figures.emplace_back("storage_headroom", s.headroom);
  if (s.deliverable_samples_per_s > 0) f->figures.emplace_back("deliverable_samples_per_s", s.deliverable_samples_per_s);
  if (s.needed_samples_per_s > 0) f->figures.emplace_back("needed_samples_per_s", s.needed_samples_per_s);
  if (s.phase) f->figures.emplace_back("storage_mb_per_s", s.phase->mb_per_s);
  if (s.readers > 0) f->figures.emplace_back("readers", s.readers);
  if (s.storage_ms_per_step > 0) f->figures.emplace_back("storage_ms_per_step", s.storage_ms_per_step);
  if (limit == InputLimit::kStorage) StorageFix(s, f);
  else if (limit == InputLimit::kCpu) CpuFix(sig, s, f);
}

}  // namespace stepdoctor::rules
