// The subcommand table: each entry is {name, summary, setup}. main() only dispatches.
// Each command lives in its own cmd_<name>.cc and is listed once in commands.cc.
#pragma once

#include <CLI/CLI.hpp>

#include "stepdoctor/importers/import_paths.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data_probe.h"
#include "stepdoctor/report/fail_on.h"

namespace stepdoctor::live {
struct LiveSessionOptions;
class SamplesWriter;
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
  // 1-3 command lines `--help` shows under "Examples:" (and the man page under EXAMPLES).
  // Lines naming bundled examples/ are run by tests/cli/help_examples_test.cc.
  std::vector<const char*> examples;
};

const std::vector<Command>& Commands();

// The footer `--help` prints for a command: its examples, one per line.
std::string ExamplesFooter(const Command& c);

// -q,--quiet, added to every command by main(): no progress bar, status line or
// informational lines on stderr. Errors and --fail-on reasons still print.
void AddQuietFlag(CLI::App& sub);
bool Quiet();
// Prints "stepdoctor: <message>" on stderr unless --quiet: what went well or what was written
// where, never an error.
void PrintInfo(const std::string& message);

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
std::function<int()> SetupMerge(CLI::App& sub);
std::function<int()> SetupSummarize(CLI::App& sub);
std::function<int()> SetupIoBench(CLI::App& sub);
std::function<int()> SetupRun(CLI::App& sub);
std::function<int()> SetupScalars(CLI::App& sub);
std::function<int()> SetupTfrecord(CLI::App& sub);
std::function<int()> SetupTune(CLI::App& sub);
std::function<int()> SetupWatch(CLI::App& sub);
std::function<int()> SetupWhatIf(CLI::App& sub);

// Where and how DiagnosePaths renders.
struct DiagnoseOutput {
  std::string format = "text";
  std::string output;  // empty: stdout
  std::string run;     // TensorBoard logdir: the profile run to read
  int width = 100;
  // When the import of all paths fails, say so in the same one-line error and diagnose the first
  // path alone (run's samples, when the logdir beside them is unusable).
  bool fall_back_to_first = false;
  DataProbeCli data;  // --data DIR: probe the dataset's storage when input-bound (data_probe.h)
};
// The one import -> analyse -> render path, for diagnose and for the samples (plus a logdir)
// of a finished run or watch session (defined in cmd_diagnose.cc). On an unknown format,
// unusable input or output that cannot be written, prints the one-line error and returns
// nullopt (the caller decides the exit status).
std::optional<Report> DiagnosePaths(const std::vector<std::string>& paths, const DiagnoseOutput& out);
// The same report, not rendered (out.format and out.output unused); errors printed as above.
std::optional<Report> DiagnoseReport(const std::vector<std::string>& paths, const DiagnoseOutput& out);

// Options `diagnose` and `diff` share: how to render, where to, which profile run, --fail-on.
struct ReportCliOptions {
  std::string format = "text";
  std::string output;                // empty: stdout
  std::string run;                   // TensorBoard logdir: the profile run to read
  int width = 100;
  std::vector<std::string> fail_on;  // --fail-on expressions (repeatable)
};
// Imports `paths` with a progress bar on a terminal; on unusable input prints the one-line
// error and returns nullopt (the caller exits with kExitBadInput). keep_parts: each file's
// Trace apart (ImportOptions::keep_parts).
std::optional<ImportResult> ImportForCommand(const std::vector<std::string>& paths, const std::string& run,
                                             bool fall_back_to_first = false, bool keep_parts = false);

// Summaries (.sdsum) among `paths` (cmd_summarize.cc): files named, or found in folders.
struct SummaryInputs {
  std::vector<std::string> named, in_folders;  // summary files
  std::vector<std::string> not_summaries;      // paths that hold no summary
  int other_files_in_folders = 0;              // files beside the summaries in their folders, not read
};
SummaryInputs FindSummaryInputs(const std::vector<std::string>& paths);
// The job report of the summaries found (`merge`, and `diagnose` on summaries): a summary named
// that cannot be read is an error (printed; nullopt), one in a folder is skipped and said so.
std::optional<Report> MergeSummaries(const SummaryInputs& in);

// `formats` lists the --format names; `fail_on_example` shows a typical expression.
void AddReportCliOptions(CLI::App& sub, ReportCliOptions* o, const std::vector<std::string>& formats,
                         const std::string& fail_on_example);

// Options `run` and `watch` share.
struct LiveCliOptions {
  std::string interval = "1s";
  std::string out;              // samples file; empty: live::DefaultSamplesNameNow() here
  std::string format = "text";
  int width = 100;
  bool no_gpu = false;
};
void AddLiveCliOptions(CLI::App& sub, LiveCliOptions* o);
// Checks the shared options and fills the session's: interval, rank, GPUs, one-line notes, the
// status line on a terminal. Prints the error and returns false on bad input.
bool MakeLiveSessionOptions(const LiveCliOptions& o, live::LiveSessionOptions* so);
// Creates the samples file before sampling starts, exclusively: --out as given (an existing
// file is refused, never overwritten), else the default name for this host, rank and process,
// numbered where taken. Null, with "PATH: cannot write the samples file: REASON" printed, when
// it cannot be created.
std::unique_ptr<live::SamplesWriter> CreateSamplesFile(const LiveCliOptions& o);
// Clears the status line if the session drew one.
void ClearLiveStatus(const live::LiveSessionOptions& so);

}  // namespace stepdoctor::cli
