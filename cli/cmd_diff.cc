// stepdoctor diff BEFORE AFTER: what changed between two runs. Also home of the --fail-on
// handling that diagnose and diff share (declared in commands.h).
#include <cstdio>
#include <fstream>
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/reports_to_diff.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/diff_render.h"

namespace stepdoctor::cli {
namespace {

struct DiffArgs {
  std::string before, after;
  ReportCliOptions report;  // --run applies to both sides
};

FailOnVocabulary Vocabulary() {
  FailOnVocabulary v;
  for (const auto& r : AllRules()) v.finding_ids.push_back(r.id);
  for (int c = 0; c < kStepCategoryCount; ++c) v.categories.push_back(StepCategoryId(static_cast<StepCategory>(c)));
  return v;
}

}  // namespace

Result<std::vector<FailOnExpr>> ParseFailOnFlags(const std::vector<std::string>& texts, bool is_diff) {
  std::vector<FailOnExpr> out;
  FailOnVocabulary vocab = Vocabulary();
  for (const auto& t : texts) {
    auto e = ParseFailOn(t, vocab);
    if (!e.ok()) return e.status();
    if (FailOnNeedsDiff(*e) && !is_diff)
      return Result<std::vector<FailOnExpr>>(
          ErrorCode::kInvalidArgument, "--fail-on '" + e->text + "' compares two runs: use it with `stepdoctor diff`");
    out.push_back(std::move(*e));
  }
  return out;
}

int CheckFailOn(const std::vector<FailOnExpr>& exprs, const Report& report, const DiffReport* diff) {
  int rc = kExitOk;
  for (const auto& e : exprs) {
    auto outcome = EvaluateFailOn(e, report, diff);
    if (!outcome.ok()) {  // ParseFailOnFlags already refused what cannot be evaluated
      PrintError(outcome.message());
      return kExitBadInput;
    }
    if (outcome->met) {
      PrintError("--fail-on " + e.text + " met: " + outcome->reason);
      rc = kExitFailOn;
    }
  }
  return rc;
}

std::function<int()> SetupDiff(CLI::App& sub) {
  auto a = std::make_shared<DiffArgs>();
  sub.add_option("before", a->before, "the baseline run: a trace file or folder")->required();
  sub.add_option("after", a->after, "the run to compare with it: a trace file or folder")->required();
  AddReportCliOptions(sub, &a->report, DiffRendererNames(), "step_time_regression>5% or input_bound>=moderate");
  return [a]() -> int {
    const ReportCliOptions& o = a->report;
    DiffRenderer render = FindDiffRenderer(o.format);
    if (!render) {
      PrintError("--format " + o.format + ": unknown format");
      return kExitBadInput;
    }
    auto fail_on = ParseFailOnFlags(o.fail_on, /*is_diff=*/true);
    if (!fail_on.ok()) {
      PrintError(fail_on.message());
      return kExitBadInput;
    }
    auto before = ImportForCommand({a->before}, o.run);
    if (!before) return kExitBadInput;
    auto after = ImportForCommand({a->after}, o.run);
    if (!after) return kExitBadInput;
    Report rb = AnalyzeTrace(before->trace);
    Report ra = AnalyzeTrace(after->trace);
    DiffReport diff = ReportsToDiff(before->trace, rb, after->trace, ra);
    RenderOptions ro;
    ro.width = o.width;
    if (!WriteOutput(render(diff, ro), o.output)) return kExitBadInput;
    return CheckFailOn(*fail_on, ra, &diff);
  };
}

}  // namespace stepdoctor::cli
