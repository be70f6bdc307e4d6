// stepdoctor diagnose PATH...: import, analyse, render.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "commands.h"
#include "progress.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::cli {
namespace {

struct DiagnoseArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string output;  // empty: stdout
  std::string run;     // TensorBoard profile run
  int width = 100;
  std::vector<std::string> fail_on;  // --fail-on expressions (repeatable)
};


}  // namespace

std::function<int()> SetupDiagnose(CLI::App& sub) {
  auto a = std::make_shared<DiagnoseArgs>();
  sub.add_option("paths", a->paths, "trace files or folders (Chrome-trace JSON, .xplane.pb, TensorBoard logdirs, "
                                    "GPU logs)")
      ->required();
  sub.add_option("-f,--format", a->format, "output format: " + JoinNames(RendererNames()));
  sub.add_option("-o,--output", a->output, "write the report to this file instead of stdout");
  sub.add_option("--run", a->run, "TensorBoard logdir: the profile run to read (default: the newest)");
  sub.add_option("--width", a->width, "text width in columns");
  sub.add_option("--fail-on", a->fail_on,
                 "exit 1 when this holds, e.g. input_bound>=moderate or 'host_bound.share>30%' (repeatable; see "
                 "docs/reports.md)");
  return [a]() -> int {
    Renderer render = FindRenderer(a->format);
    if (!render) {
      PrintError("--format " + a->format + ": unknown format");
      return kExitBadInput;
    }
    auto fail_on = ParseFailOnFlags(a->fail_on, /*is_diff=*/false);
    if (!fail_on.ok()) {
      PrintError(fail_on.message());
      return kExitBadInput;
    }
    ProgressBar progress(StderrIsInteractive());
    ImportOptions io;
    io.profile_run = a->run;
    io.progress = progress.Callback();
    auto imported = ImportPaths(a->paths, io);
    progress.Finish();
    if (!imported.ok()) {
      PrintError(imported.message());
      return kExitBadInput;
    }
    Report report = AnalyzeTrace(imported->trace);
    RenderOptions ro;
    ro.color = ColorWanted(a->format, a->output);
    ro.width = a->width;
    if (!WriteOutput(render(report, ro), a->output)) return kExitBadInput;
    return CheckFailOn(*fail_on, report, nullptr);
  };
}

}  // namespace stepdoctor::cli
