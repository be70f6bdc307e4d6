// The subcommand table: each entry is {name, summary, setup}. main() only dispatches.
// Each command lives in its own cmd_<name>.cc and is listed once in commands.cc.
#pragma once

#include <CLI/CLI.hpp>

#include "stepdoctor/importers/import_paths.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/report/fail_on.h"

namespace stepdoctor::live {
struct LiveSessionOptions;
}  // namespace stepdoctor::live

namespace stepdoctor::cli {

// Exit statuses of the stepdoctor command.
inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitFailOn = 1;    // a --fail-on condition was met; tfrecord verify found damage
inline constexpr int kExitBadInput = 2;  // unusable input or arguments

// Adds the subcommand's options to `sub`; returns the function that runs it after parsing.
using CommandSetup = std::function<int()> (*)(CLI::App& sub);

struct Command {
  const char* name;
  const char* summary;
  CommandSetup setup;
};

const std::vector<Command>& Commands();

// Prints "stepdoctor: <message>" on stderr (one line).
void PrintError(const std::string& message);

// Writes a report to `path`, or to stdout when it is empty; false (with the error printed) when
// the file, or stdout (a full disk, /dev/full), cannot be written.
bool WriteOutput(const std::string& text, const std::string& path);
// Flushes stdout; on a write error prints "stepdoctor: standard output: cannot write: REASON"
// (once per process) and returns false. main() calls it before exiting, so
// what commands print with printf is checked too.
bool FlushStdout();
// Whether FlushStdout has already printed its error.
bool StdoutErrorReported();
// Colour only for text on a terminal, and never when NO_COLOR is set (no-color.org).
bool ColorWanted(const std::string& format, const std::string& output_path);
// "text|json|md|html", for option help.
std::string JoinNames(const std::vector<std::string>& names);

// --fail-on, shared by diagnose and diff (cmd_diff.cc). ParseFailOnFlags refuses a malformed
// expression, and one that needs two runs outside `diff`. CheckFailOn prints
// "stepdoctor: --fail-on EXPR met: REASON" for each condition met and returns kExitFailOn if
// any was, else kExitOk. Call it after the report is written, so the reason is the last line.
Result<std::vector<FailOnExpr>> ParseFailOnFlags(const std::vector<std::string>& texts, bool is_diff);
int CheckFailOn(const std::vector<FailOnExpr>& exprs, const Report& report, const DiffReport* diff);

// The commands (cmd_<name>.cc).
std::function<int()> SetupDiagnose(CLI::App& sub);
std::function<int()> SetupDiff(CLI::App& sub);
std::function<int()> SetupInspect(CLI::App& sub);
std::function<int()> SetupIoBench(CLI::App& sub);
std::function<int()> SetupRun(CLI::App& sub);
std::function<int()> SetupScalars(CLI::App& sub);
std::function<int()> SetupTfrecord(CLI::App& sub);
std::function<int()> SetupWatch(CLI::App& sub);

// Shared by run and watch (defined in cmd_run.cc): the default samples file name, and the
// diagnosis of a finished session's samples (plus a logdir) printed on stdout.
std::string DefaultSamplesPath();

// Options `diagnose` and `diff` share: how to render, where to, which profile run, --fail-on.
struct ReportCliOptions {
  std::string format = "text";
  std::string output;                // empty: stdout
  std::string run;                   // TensorBoard logdir: the profile run to read
  int width = 100;
  std::vector<std::string> fail_on;  // --fail-on expressions (repeatable)
};
// Imports `paths` with a progress bar on a terminal; on unusable input prints the one-line
// error and returns nullopt (the caller exits with kExitBadInput).
std::optional<ImportResult> ImportForCommand(const std::vector<std::string>& paths, const std::string& run);

// `formats` lists the --format names; `fail_on_example` shows a typical expression.
void AddReportCliOptions(CLI::App& sub, ReportCliOptions* o, const std::vector<std::string>& formats,
                         const std::string& fail_on_example);

// Options `run` and `watch` share.
struct LiveCliOptions {
  std::string interval = "1s";
  std::string out;              // samples file; empty: DefaultSamplesPath()
  std::string format = "text";
  int width = 100;
  bool no_gpu = false;
};
void AddLiveCliOptions(CLI::App& sub, LiveCliOptions* o);
// Checks the shared options and fills the session's: interval, samples path, GPUs, one-line
// notes, the status line on a terminal. Prints the error and returns false on bad input.
bool MakeLiveSessionOptions(const LiveCliOptions& o, live::LiveSessionOptions* so);
// Clears the status line if the session drew one.
void ClearLiveStatus(const live::LiveSessionOptions& so);
int DiagnoseLiveSamples(const std::vector<std::string>& paths, const std::string& format, int width);

}  // namespace stepdoctor::cli
