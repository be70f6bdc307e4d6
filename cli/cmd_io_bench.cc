// stepdoctor io-bench PATH: what the storage under PATH delivers (sequential and small-file
// reads, 1..N readers, cold where possible), against what the job needs.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "stepdoctor/core/byte_size.h"
#include "progress.h"
#include "stepdoctor/analysis/input_limit.h"
#include "stepdoctor/iobench/storage_probe.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/render/io_bench_render.h"

namespace stepdoctor::cli {
namespace {

struct IoBenchCli {
  std::string path, duration = "10s", format = "text", output, bytes_per_sample;
  std::vector<std::string> trace;  // the job's trace or samples file: its rate
  int threads = 4;
  double samples_per_s = 0, samples_per_step = 0;
  bool warm = false;
  uint64_t seed = 1;
};

int RunIoBenchCommand(const IoBenchCli& c) {
  IoBenchOptions o;
  o.path = c.path;
  o.max_threads = c.threads;
  o.cold = !c.warm;
  o.samples_per_s = c.samples_per_s;
  o.seed = c.seed;
  auto d = live::ParseDurationNs(c.duration);
  if (!d.ok() || *d <= 0) {
    PrintError("--duration: " + (d.ok() ? std::string("must be positive") : d.message()));
    return kExitBadInput;
  }
  o.duration_s = double(*d) / 1e9;
  if (c.threads < 1) {
    PrintError("--threads: must be at least 1");
    return kExitBadInput;
  }
  if (!c.bytes_per_sample.empty()) {
    auto b = ParseByteSize(c.bytes_per_sample);
    if (!b.ok()) {
      PrintError("--bytes-per-sample: " + b.message());
      return kExitBadInput;
    }
    o.bytes_per_sample = double(*b);
  }
  if (c.format != "text" && c.format != "json" && c.format != "md" && c.format != "html") {
    PrintError("--format: text, json, md or html");
    return kExitBadInput;
  }
  if (!c.trace.empty() && c.samples_per_s > 0) {
    PrintError("--trace and --samples-per-sec: give one of them");
    return kExitBadInput;
  }
  if (c.samples_per_step != 0 && c.trace.empty()) {
    PrintError("--samples-per-step needs --trace");
    return kExitBadInput;
  }
  if (!c.trace.empty()) {
    // What the job needs: its steps (without their input wait) times the samples each reads, or
    // the bytes live samples saw it read.
    auto imported = ImportForCommand(c.trace, "");
    if (!imported) return kExitBadInput;
    auto demand = TraceToInputDemand(imported->trace, c.samples_per_step);
    if (!demand.ok()) {
      PrintError("--trace " + c.trace[0] + ": " + demand.message());
      return kExitBadInput;
    }
    o.samples_per_s = demand->needed_samples_per_s;
    o.need_mb_per_s = demand->needed_mb_per_s;
    o.need_source = fmt::format("--trace: {}; {} for steps without input wait", demand->source,
                                o.samples_per_s > 0 ? fmt::format("{:.0f} samples/s", o.samples_per_s)
                                                    : fmt::format("{:.1f} MB/s", o.need_mb_per_s));
  }
  ProgressBar progress(StderrIsInteractive());
  o.progress = [&progress](const std::string& phase, uint64_t done, uint64_t total) {
    progress.Update(phase, done, total);
  };
  auto r = RunIoBench(o);
  progress.Finish();
  if (!r.ok()) {
    PrintError(r.message());
    return kExitBadInput;
  }
  std::string text = c.format == "json" ? RenderIoBenchJson(*r)
                     : c.format == "md" ? RenderIoBenchMarkdown(*r)
                     : c.format == "html" ? RenderIoBenchHtml(*r, STEPDOCTOR_VERSION)
                                          : RenderIoBenchText(*r);
  return WriteOutput(text, c.output) ? kExitOk : kExitBadInput;
}

}  // namespace

std::function<int()> SetupIoBench(CLI::App& sub) {
  auto c = std::make_shared<IoBenchCli>();
  sub.add_option("path", c->path, "a dataset folder (or one file) on the storage to measure")->required();
  sub.add_option("--threads", c->threads, "most readers at once (measures 1, 2, 4, ... up to this)");
  sub.add_option("--duration", c->duration, "time for the whole measurement, e.g. 10s");
  sub.add_option("--samples-per-sec", c->samples_per_s, "samples per second the job needs");
  sub.add_option("--trace", c->trace, "the job's trace or samples file: what it needs, from its steps or its reads");
  sub.add_option("--samples-per-step", c->samples_per_step, "samples each step of --trace reads (the batch size; default: the batch a PyTorch trace with record_shapes shows)");
  sub.add_option("--bytes-per-sample", c->bytes_per_sample, "bytes read per sample, e.g. 110KB (default: mean file size)");
  sub.add_flag("--warm", c->warm, "leave the page cache alone (default: drop each file before reading it)");
  sub.add_option("--seed", c->seed, "which small files are sampled");
  sub.add_option("-f,--format", c->format, "output format: text|json|md|html");
  sub.add_option("-o,--output", c->output, "write the report to this file instead of stdout");
  return [c] { return RunIoBenchCommand(*c); };
}

}  // namespace stepdoctor::cli
