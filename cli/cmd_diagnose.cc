// stepdoctor diagnose PATH...: import, analyse, render.
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::cli {
namespace {

struct DiagnoseArgs {
  std::vector<std::string> paths;
  ReportCliOptions report;
};

}  // namespace

std::function<int()> SetupDiagnose(CLI::App& sub) {
  auto a = std::make_shared<DiagnoseArgs>();
  sub.add_option("paths", a->paths, "trace files or folders (Chrome-trace JSON, .xplane.pb, TensorBoard logdirs, "
                                    "GPU logs)")
      ->required();
  AddReportCliOptions(sub, &a->report, RendererNames(), "input_bound>=moderate or 'host_bound.share>30%'");
  return [a]() -> int {
    const ReportCliOptions& o = a->report;
    Renderer render = FindRenderer(o.format);
    if (!render) {
      PrintError("--format " + o.format + ": unknown format");
      return kExitBadInput;
    }
    auto fail_on = ParseFailOnFlags(o.fail_on, /*is_diff=*/false);
    if (!fail_on.ok()) {
      PrintError(fail_on.message());
      return kExitBadInput;
    }
    auto imported = ImportForCommand(a->paths, o.run);
    if (!imported) return kExitBadInput;
    Report report = AnalyzeTrace(imported->trace);
    RenderOptions ro;
    ro.color = ColorWanted(o.format, o.output);
    ro.width = o.width;
    if (!WriteOutput(render(report, ro), o.output)) return kExitBadInput;
    return CheckFailOn(*fail_on, report, nullptr);
  };
}

}  // namespace stepdoctor::cli
