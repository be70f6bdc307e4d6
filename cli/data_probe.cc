#include "data_probe.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "commands.h"
#include "progress.h"
#include "stepdoctor/core/byte_size.h"
#include "stepdoctor/iobench/storage_probe.h"
#include "stepdoctor/live/live_session.h"

namespace stepdoctor::cli {
namespace {

constexpr int kDefaultProbeReaders = 4;  // readers probed (1, 2, 4) where the job's count is not given

bool InputBound(const Report& r) {
  return std::any_of(r.findings.begin(), r.findings.end(),
                     [](const Finding& f) { return f.id == "input_bound" || f.id == "tfdata_bottleneck_stage"; });
}

}  // namespace

void AddDataProbeOptions(CLI::App& sub, DataProbeCli* o) {
  sub.add_option("--data", o->dir, "the dataset folder: when input-bound, probe its storage to tell storage from CPU");
  sub.add_option("--samples-per-step", o->samples_per_step, "samples each step reads (the batch size), with --data (default: the batch a PyTorch trace with record_shapes shows)");
  sub.add_option("--bytes-per-sample", o->bytes_per_sample,
                 "bytes a sample reads, e.g. 110KB, with --data (default: the dataset's mean file size)");
  sub.add_option("--data-readers", o->readers, "parallel readers the job uses (num_workers, num_parallel_reads)");
  sub.add_option("--data-duration", o->duration, "time for the storage probe, e.g. 5s");
}

bool CheckDataProbeOptions(const DataProbeCli& o) {
  if (o.dir.empty()) {
    if (o.samples_per_step != 0 || o.readers != 0 || !o.bytes_per_sample.empty()) {
      PrintError("--samples-per-step, --bytes-per-sample and --data-readers need --data DIR");
      return false;
    }
    return true;
  }
  struct stat st;
  if (::stat(o.dir.c_str(), &st) != 0) {
    PrintError("--data " + o.dir + ": no such file or folder");
    return false;
  }
  auto d = live::ParseDurationNs(o.duration);
  if (!d.ok() || *d <= 0) {
    PrintError("--data-duration: " + (d.ok() ? std::string("must be positive") : d.message()));
    return false;
  }
  if (o.samples_per_step < 0 || o.readers < 0) {
    PrintError("--samples-per-step and --data-readers: must not be negative");
    return false;
  }
  if (!o.bytes_per_sample.empty() && !ParseByteSize(o.bytes_per_sample).ok()) {
    PrintError("--bytes-per-sample: " + ParseByteSize(o.bytes_per_sample).message());
    return false;
  }
  return true;
}

std::optional<Report> DiagnoseWithData(const Trace& trace, const DataProbeCli& o, Report first) {
  if (!InputBound(first)) {
    first.notes.push_back("--data " + o.dir + ": storage probe skipped: the steps are not input-bound (no input_bound "
                          "or tfdata_bottleneck_stage finding), so storage is not what they wait on");
    return first;
  }
  IoBenchOptions io;
  io.path = o.dir;
  io.max_threads = o.readers > 0 ? o.readers : kDefaultProbeReaders;
  auto duration = live::ParseDurationNs(o.duration);  // checked by CheckDataProbeOptions
  io.duration_s = double(*duration) / 1e9;
  ProgressBar progress(StderrIsInteractive() && !Quiet());
  io.progress = [&progress](const std::string& phase, uint64_t done, uint64_t total) {
    progress.Update("probing storage: " + phase, done, total);
  };
  auto probe = RunIoBench(io);
  progress.Finish();
  if (!probe.ok()) {
    PrintError("--data: " + probe.message());
    return std::nullopt;
  }
  AnalyzeOptions ao;
  ao.storage = &*probe;
  ao.samples_per_step = o.samples_per_step;
  if (!o.bytes_per_sample.empty()) {
    auto bytes = ParseByteSize(o.bytes_per_sample);  // checked by CheckDataProbeOptions
    ao.bytes_per_sample = double(*bytes);
  }
  ao.data_readers = o.readers;
  Report r = AnalyzeTrace(trace, ao);
  double seconds = 0;
  for (const auto& p : probe->phases) seconds += p.seconds;
  r.notes.push_back(fmt::format("--data {}: storage probed for {:.1f} s ({} files, 1-{} readers; {}); the input "
                                "findings compare it with what the steps read",
                                o.dir, seconds, probe->files, io.max_threads, probe->cache_note));
  return r;
}

}  // namespace stepdoctor::cli
