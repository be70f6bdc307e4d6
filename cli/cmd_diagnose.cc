// stepdoctor diagnose PATH...: import, analyse, render; and that one path for run and watch.
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/analyze.h"
#include "data_probe.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"

namespace stepdoctor::cli {
namespace {

struct DiagnoseArgs {
  std::vector<std::string> paths;
  ReportCliOptions report;
  DataProbeCli data;
};

}  // namespace

std::optional<Report> DiagnoseReport(const std::vector<std::string>& paths, const DiagnoseOutput& out) {
  std::optional<Report> report;
  SummaryInputs summaries = FindSummaryInputs(paths);
  if (!summaries.named.empty() || !summaries.in_folders.empty()) {
    // Summaries: merged as `merge` does; traces beside them would be a second job report.
    if (!summaries.not_summaries.empty()) {
      PrintError(summaries.not_summaries.front() + ": a trace beside summaries; summarise it too (stepdoctor "
                                                   "summarize), or diagnose the traces alone");
      return std::nullopt;
    }
    report = MergeSummaries(summaries);
  } else {
    // The ranks of one job are each analysed alone, then merged: the report `merge` gives on
    // their summaries. --data probes storage for one analysis of the traces together.
    const bool keep_parts = out.data.dir.empty();
    auto imported = ImportForCommand(paths, out.run, out.fall_back_to_first, keep_parts);
    if (!imported) return std::nullopt;
    if (ArePartsRanks(imported->parts)) {
      auto job = RankTracesToReport(std::move(imported->parts), imported->part_paths);
      if (!job.ok()) {
        PrintError(job.message());
        return std::nullopt;
      }
      report = std::move(*job);
      for (std::string& line : ImportDiagnosticLines(imported->trace.diagnostics))
        report->diagnostics.push_back(std::move(line));
    } else {
      MergeParts(&*imported);
      report = AnalyzeTrace(imported->trace);
      if (!out.data.dir.empty()) report = DiagnoseWithData(imported->trace, out.data, std::move(*report));
    }
  }
  return report;
}

std::optional<Report> DiagnosePaths(const std::vector<std::string>& paths, const DiagnoseOutput& out) {
  Renderer render = FindRenderer(out.format);
  if (!render) {
    PrintError("--format " + out.format + ": unknown format");
    return std::nullopt;
  }
  std::optional<Report> report = DiagnoseReport(paths, out);
  if (!report) return std::nullopt;
  RenderOptions ro;
  ro.color = ColorWanted(out.format, out.output);
  ro.width = out.width;
  if (!WriteOutput(render(*report, ro), out.output)) return std::nullopt;
  return report;
}

std::function<int()> SetupDiagnose(CLI::App& sub) {
  auto a = std::make_shared<DiagnoseArgs>();
  sub.add_option("paths", a->paths, "trace files or folders (Chrome-trace JSON, .xplane.pb, TensorBoard logdirs, "
                                    "GPU logs), or rank summaries (.sdsum)")
      ->required();
  AddReportCliOptions(sub, &a->report, RendererNames(), "input_bound>=moderate or 'host_bound.share>30%'");
  AddDataProbeOptions(sub, &a->data);
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
    if (!CheckDataProbeOptions(a->data)) return kExitBadInput;
    DiagnoseOutput out;
    out.format = o.format;
    out.output = o.output;
    out.run = o.run;
    out.width = o.width;
    out.data = a->data;
    std::optional<Report> report = DiagnosePaths(a->paths, out);
    if (!report) return kExitBadInput;
    return CheckFailOn(*fail_on, *report, nullptr);
  };
}

}  // namespace stepdoctor::cli
