// Helpers shared by tests: corpus paths (skipping when ../shared/corpus is absent), running
// the CLI, reading files.
#pragma once

#include "stepdoctor/analysis/signals.h"

#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/core/result.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor::testing {

// Imports `text` as if it were a file named `name` (format detected from its bytes); the
// detected format is stored in *format where given.
Status ImportText(const std::string& text, const std::string& name, Trace* t, InputFormat* format = nullptr);
// Imports inline Chrome-trace JSON (tests/inline_chrome.h builds it); a test failure where it
// does not import.
Trace ImportChrome(const std::string& json);
// The kind of the first event named `name`; a test failure (and kCount_) where there is none.
EventKind KindOf(const Trace& t, const std::string& name);
// The counter series named `name`, or nullptr.
const CounterSeries* FindCounter(const Trace& t, const std::string& name);
// The import diagnostics' notes, one a line; whether one holds `part`.
std::string NotesOf(const Trace& t);
bool AnyNoteContains(const Trace& t, const std::string& part);

// Absolute path of a file in ../shared/corpus, or "" when the corpus is not there.
std::string CorpusPath(const std::string& rel);
// Absolute path of a file or folder in ../shared (fuzz-found/, ...), or "" when it is not there.
std::string SharedPath(const std::string& rel);
// Path of a file in the project's source tree (examples/, tests/data/).
std::string SourcePath(const std::string& rel);
std::string ReadFileOrDie(const std::string& path);
// A new empty folder under the test temp dir, named PREFIX_XXXXXX.
std::string MakeTempDir(const std::string& prefix);

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs the built stepdoctor binary with `args` (a shell-quoted string) from the repository
// root, capturing output.
CliResult RunCli(const std::string& args, const std::string& env = "");

// The finding with this id in a report, or nullptr.
const Finding* FindFinding(const Report& r, const std::string& id);
// A finding's evidence as "label: value" lines.
std::string EvidenceText(const Finding& f);

// Step signals of steps taking `ms` (numbered from 1): median, mean, and the outliers over
// kOutlierStepFactor x the median, as trace_to_step_signals finds them; nothing else set.
StepSignals StepsFromMs(std::vector<double> ms);

}  // namespace stepdoctor::testing

// Skips the current test, saying why, when a corpus file is missing (a user's clone).
#define SD_CORPUS_OR_SKIP(var, rel)                                                   \
  std::string var = ::stepdoctor::testing::CorpusPath(rel);                          \
  if (var.empty()) GTEST_SKIP() << "../shared/corpus not present: skipping " << rel
