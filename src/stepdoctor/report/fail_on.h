// `--fail-on EXPR`: conditions over a Report (diagnose) or a DiffReport (diff) that make CI
// fail. The grammar is documented in docs/reports.md:
//
//   expr    := subject [ op value ]
//   subject := FINDING_ID [ '.severity' | '.share' | '.gain' ] | 'verdict' | 'breakdown.' CATEGORY
//            | 'step_time' | 'step_time_regression'
//   op      := '>=' | '>' | '<=' | '<' | '=' | '==' | '!='
//   value   := SEVERITY | BOTTLENECK | NUMBER [ '%' | 'ms' | 'x' ]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/report/diff.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

enum class FailOnSubject : uint8_t {
  kFindingPresent,     // input_bound: listed with severity low or above
  kFindingSeverity,    // input_bound>=moderate (also input_bound.severity>=moderate)
  kFindingShare,       // input_bound.share>30%: share of step time (0 when absent)
  kFindingGain,        // input_bound.gain>1.3x: speed-up upper bound (1 when absent)
  kVerdict,            // verdict=input, verdict!=input
  kBreakdownPct,       // breakdown.input>30%: share of step time
  kBreakdownMs,        // breakdown.input>40ms: ms per step
  kStepTimeMs,         // step_time>150ms: median step (the after side in a diff)
  kStepRegressionPct,  // step_time_regression>5%: median step grew by more than 5% (diff only)
  kStepRegressionMs,   // step_time_regression>10ms (diff only)
};

enum class FailOnOp : uint8_t { kNone, kGe, kGt, kLe, kLt, kEq, kNe };

struct FailOnExpr {
  std::string text;    // as written, for messages
  FailOnSubject subject = FailOnSubject::kFindingPresent;
  std::string name;    // finding id or breakdown category
  FailOnOp op = FailOnOp::kNone;
  FindingSeverity severity = FindingSeverity::kNone;  // kFindingSeverity
  Bottleneck bottleneck = Bottleneck::kUnknown;       // kVerdict
  double number = 0;   // the numeric subjects; percent as 0-100
};

// The names an expression may use; an empty list accepts any name (the CLI fills both from
// the rule registry and the step categories, so a typo is an error and not a silent pass).
struct FailOnVocabulary {
  std::vector<std::string> finding_ids;
  std::vector<std::string> categories;
};

// kInvalidArgument with a one-line message naming the expression when it is malformed.
Result<FailOnExpr> ParseFailOn(std::string_view text, const FailOnVocabulary& vocab = {});

// True for subjects only a diff has (step_time_regression).
bool FailOnNeedsDiff(const FailOnExpr& e);

struct FailOnOutcome {
  bool met = false;
  std::string reason;  // what the report says: "input_bound is high (31.2% of step time)"
};

// Evaluates against `report` (a diff's after side) and, for diff-only subjects, `diff`.
// kInvalidArgument when the expression needs a diff and `diff` is null.
Result<FailOnOutcome> EvaluateFailOn(const FailOnExpr& e, const Report& report, const DiffReport* diff = nullptr);

}  // namespace stepdoctor
