// stepdoctor diagnose PATH...: import, analyse, render; and that one path for run and watch.
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

std::optional<Report> DiagnosePaths(const std::vector<std::string>& paths, const DiagnoseOutput& out) {
  Renderer render = FindRenderer(out.format);
  if (!render) {
    PrintError("--format " + out.format + ": unknown format");
    return std::nullopt;
  }
  auto imported = ImportForCommand(paths, out.run, out.fall_back_to_first);
  if (!imported) return std::nullopt;
  Report report = AnalyzeTrace(imported->trace);
  RenderOptions ro;
  ro.color = ColorWanted(out.format, out.output);
  ro.width = out.width;
  if (!WriteOutput(render(report, ro), out.output)) return std::nullopt;
  return report;
}

std::function<int()> SetupDiagnose(CLI::App& sub) {
  auto a = std::make_shared<DiagnoseArgs>();
  sub.add_option("paths", a->paths, "trace files or folders (Chrome-trace JSON, .xplane.pb, TensorBoard logdirs, "
                                    "GPU logs)")
      ->required();
  AddReportCliOptions(sub, &a->report, RendererNames(), "input_bound>=moderate or 'host_bound.share>30%'");
  return [a]() -> int {
    const ReportCliOptions& o = a->report;
    if (!FindRenderer(o.format)) {
      PrintError("--format " + o.format + ": unknown format");
      return kExitBadInput;
    }
    auto fail_on = ParseFailOnFlags(o.fail_on, /*is_diff=*/false);
    if (!fail_on.ok()) {
      PrintError(fail_on.message());
      return kExitBadInput;
    }
    std::optional<Report> report = DiagnosePaths(a->paths, {o.format, o.output, o.run, o.width});
    if (!report) return kExitBadInput;
    return CheckFailOn(*fail_on, *report, nullptr);
  };
}

}  // namespace stepdoctor::cli
