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

std::optional<ImportResult> ImportForCommand(const std::vector<std::string>& paths, const std::string& run) {
  ProgressBar progress(StderrIsInteractive());
  ImportOptions io;
  io.profile_run = run;
  io.progress = progress.Callback();
  auto imported = ImportPaths(paths, io);
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
  static const std::vector<Command> kCommands = {
      {"diagnose", "say what bounds the training step, how much each fix gains, and the code to change",
       &SetupDiagnose},
      {"diff", "compare two runs: step time, breakdown, verdict, and kernels/ops added, removed, slower, faster",
       &SetupDiff},
      {"inspect", "list what was read from the inputs: workers, devices, timelines, import problems", &SetupInspect},
      {"io-bench", "measure what the storage under a dataset delivers (small files vs sequential) against what the job needs",
       &SetupIoBench},
      {"run", "run a training command, sample its processes, CPU, disk and GPUs, then diagnose", &SetupRun},
      {"scalars", "what TensorBoard event files logged: runs, tags, last values, trends, step rate, stalls",
       &SetupScalars},
      {"tfrecord", "TFRecord shards: inspect (schema, sizes), verify (checksums), pack (a folder into shards)",
       &SetupTfrecord},
      {"watch", "attach read-only to a running job's process tree, sample it, then diagnose", &SetupWatch},
  };
  return kCommands;
}

}  // namespace stepdoctor::cli
