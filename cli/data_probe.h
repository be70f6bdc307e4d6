// --data DIR (diagnose, run): when the steps are input-bound, probe the storage under the
// dataset (io-bench's probe, bounded in time) and diagnose again with its figures, so the input
// findings say whether storage or the CPU is the limit. The probe runs here, in the CLI; the
// analysis only reads its figures (AnalyzeOptions::storage).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor::cli {

struct DataProbeCli {
  std::string dir;               // empty: no probe
  std::string duration = "5s";   // the probe's whole time
  std::string bytes_per_sample;  // e.g. 110KB; empty: the dataset's mean small-file size
  double samples_per_step = 0;   // the batch size; 0: unknown
  int readers = 0;               // the job's parallel readers; 0: from the trace
};

void AddDataProbeOptions(CLI::App& sub, DataProbeCli* o);
// Checks the values and that DIR exists; prints the one-line error and returns false otherwise.
bool CheckDataProbeOptions(const DataProbeCli& o);

// `first` is the diagnosis without storage figures. Not input-bound: `first` with a note saying
// the probe was skipped and why. Input-bound: the probe, then the diagnosis again with its
// figures. nullopt (the error printed) when the folder cannot be probed.
std::optional<Report> DiagnoseWithData(const Trace& trace, const DataProbeCli& o, Report first);

}  // namespace stepdoctor::cli
