#include "commands.h"
#include "progress.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace stepdoctor::cli {

void PrintError(const std::string& message) { std::fprintf(stderr, "stepdoctor: %s\n", message.c_str()); }

namespace {

bool stdout_error_reported = false;
bool quiet = false;

// Prints the stdout error once; `err` is the errno of the failed write, 0 where it is lost.
void ReportStdoutError(int err) {
  if (stdout_error_reported) return;
  PrintError(std::string("standard output: cannot write") + (err != 0 ? std::string(": ") + std::strerror(err) : ""));
  stdout_error_reported = true;
}

}  // namespace

bool FlushStdout() {
  errno = 0;
  bool flushed = std::fflush(stdout) == 0;
  int err = errno;
  if (flushed && !std::ferror(stdout)) return true;
  // An earlier buffered write (a printf) may have failed and emptied the buffer: no errno then.
  ReportStdoutError(flushed ? 0 : err);
  return false;
}

bool StdoutErrorReported() { return stdout_error_reported; }

void AddQuietFlag(CLI::App& sub) {
  sub.add_flag("-q,--quiet", quiet, "no progress or informational lines on stderr (errors still print)");
}

bool Quiet() { return quiet; }

void PrintInfo(const std::string& message) {
  if (!quiet) PrintError(message);
}

std::string ExamplesFooter(const Command& c) {
  std::string out = "Examples:";
  for (const char* e : c.examples) out += std::string("\n  ") + e;
  return out;
}

bool WriteOutput(const std::string& text, const std::string& path) {
  if (path.empty()) {
    errno = 0;
    // A large report goes past the buffer straight to write(2): its errno is the reason.
    if (std::fwrite(text.data(), 1, text.size(), stdout) < text.size()) ReportStdoutError(errno);
    return FlushStdout();
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    PrintError(path + ": cannot write the report");
    return false;
  }
  return true;
}

bool ColorWanted(const std::string& format, const std::string& output_path) {
  if (format != "text" || !output_path.empty()) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return ::isatty(STDOUT_FILENO);
}

void AddReportCliOptions(CLI::App& sub, ReportCliOptions* o, const std::vector<std::string>& formats,
                         const std::string& fail_on_example) {
  sub.add_option("-f,--format", o->format, "output format: " + JoinNames(formats));
  sub.add_option("-o,--output", o->output, "write the report to this file instead of stdout");
  sub.add_option("--run", o->run, "TensorBoard logdirs: the profile run to read (default: the newest)");
  sub.add_option("--width", o->width, "text width in columns");
  sub.add_option("--fail-on", o->fail_on,
                 "exit 1 when this holds, e.g. " + fail_on_example + " (repeatable; see docs/reports.md)");
}

std::optional<ImportResult> ImportForCommand(const std::vector<std::string>& paths, const std::string& run,
                                             bool fall_back_to_first, bool keep_parts) {
  ProgressBar progress(StderrIsInteractive() && !Quiet());
  ImportOptions io;
  io.profile_run = run;
  io.keep_parts = keep_parts;
  io.progress = progress.Callback();
  auto imported = ImportPaths(paths, io);
  if (!imported.ok() && fall_back_to_first && paths.size() > 1) {
    PrintError(imported.message() + "; diagnosing " + paths.front() + " alone");
    imported = ImportPaths({paths.front()}, io);
  }
  progress.Finish();
  if (!imported.ok()) {
    PrintError(imported.message());
    return std::nullopt;
  }
  return std::move(imported).value();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "|") + n;
  return out;
}

const std::vector<Command>& Commands() {
  // Examples naming examples/ or logs/ are run by tests/cli/help_examples_test.cc (logs/ is a
  // small TensorBoard logdir the test writes); keep them runnable from the repository root.
  static const std::vector<Command> kCommands = {
      {"diagnose", "say what bounds the training step, how much each fix gains, and the code to change",
       &SetupDiagnose,
       {"stepdoctor diagnose examples/dataloader_input_bound.pt.trace.json.gz",
        "stepdoctor diagnose -f html -o report.html examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz",
        "stepdoctor diagnose -q --fail-on 'input_bound>=moderate' examples/dataloader_input_bound.pt.trace.json.gz"}},
      {"diff", "compare two runs: step time, breakdown, verdict, and kernels/ops added, removed, slower, faster",
       &SetupDiff,
       {"stepdoctor diff examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz "
        "examples/gpu/gpu_dataloader_workers8.pt.trace.json.gz",
        "stepdoctor diff -f md --fail-on 'step_time_regression>5%' main.pt.trace.json.gz pr.pt.trace.json.gz"}},
      {"inspect", "list what was read from the inputs: workers, devices, timelines, import problems", &SetupInspect,
       {"stepdoctor inspect examples/ddp", "stepdoctor inspect logs/"}},
      {"io-bench", "measure what the storage under a dataset delivers (small files vs sequential) against what the job needs",
       &SetupIoBench,
       {"stepdoctor io-bench /data/train --threads 8 --duration 20s",
        "stepdoctor io-bench /data/train --samples-per-sec 2000 --bytes-per-sample 110KB -f json"}},
      {"merge", "merge rank summaries (.sdsum) into the job's report: the ranks compared, the straggler named",
       &SetupMerge,
       {"stepdoctor merge summaries/ -f json -o job.json", "stepdoctor merge rank0.sdsum rank1.sdsum"}},
      {"run", "run a training command, sample its processes, CPU, disk and GPUs, then diagnose", &SetupRun,
       {"stepdoctor run -- python3 train.py --epochs 1",
        "stepdoctor run --interval 500ms --out samples.jsonl -f json -- torchrun --nproc-per-node 2 train.py"}},
      {"scalars", "what TensorBoard event files logged: runs, tags, last values, trends, step rate, stalls",
       &SetupScalars, {"stepdoctor scalars logs/", "stepdoctor scalars -f json logs/train"}},
      {"summarize", "write a compact summary of one rank's trace, for merging a large job's ranks later",
       &SetupSummarize,
       {"stepdoctor summarize examples/ddp/ddp_rank0.pt.trace.json.gz -o rank0.sdsum",
        "stepdoctor summarize traces/rank*.json.gz -o summaries/"}},
      {"tfrecord", "TFRecord shards: inspect (schema, sizes), verify (checksums), pack (a folder into shards)",
       &SetupTfrecord,
       {"stepdoctor tfrecord pack /data/images -o /data/shards --shard-size 128MB --seed 1",
        "stepdoctor tfrecord verify /data/shards/*.tfrecord", "stepdoctor tfrecord inspect /data/shards/train-00000-of-00064.tfrecord"}},
      {"tune", "run a training command once per setting (env, argv, CPUs) and keep what is faster beyond the noise",
       &SetupTune,
       {"stepdoctor tune --dry-run --metric 'rate ([0-9.]+)' --knob NUM_WORKERS=0,2 -- python3 examples/tune/train.py",
        "stepdoctor tune --budget 10m --builtin pytorch --knob NUM_WORKERS=0,2,4,8 --metric '([0-9.]+) it/s' -- python3 train.py",
        "stepdoctor tune --budget 30m --logdir logs --knob BATCH=32,64 -f json -o tune.json -- python3 train.py --batch {BATCH}"}},
      {"watch", "attach read-only to a running job's process tree, sample it, then diagnose", &SetupWatch,
       {"stepdoctor watch 4242", "stepdoctor watch --duration 10m --no-gpu -q 4242"}},
      {"whatif", "predict the step time each fix would give (input workers, launch overhead, stalls, mixed precision)",
       &SetupWhatIf,
       {"stepdoctor whatif examples/dataloader_input_bound.pt.trace.json.gz --fix input:workers=2 --cores 2",
        "stepdoctor whatif -f json examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz"}},
  };
  return kCommands;
}

}  // namespace stepdoctor::cli
