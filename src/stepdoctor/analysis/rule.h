// A rule: a condition over Signals and, when it holds, a Finding with evidence, gain and fix.
// One rule per file in analysis/rules/, registered in the sorted list in rules/registry.cc; its
// RuleDef there is the one definition of the rule (id, summary, bottleneck, needs) that the
// runner, the verdict, the docs check and the tests all read. See docs/ARCHITECTURE.md,
// "Adding a rule".
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/core/result.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// What a rule needs the input to hold; a rule whose needs are not met is not evaluated (the
// report's coverage says what is missing), so it can never judge data the input lacks.
enum RuleNeeds : unsigned {
  kNeedsNothing = 0,
  kNeedsDeviceActivity = 1u << 0,  // device work recorded, or a CPU-only job (the CPU is the device)
  kNeedsRanks = 1u << 1,           // two or more ranks of one job: judged over the ranks' figures
                                   // (Signals::workers, cross_rank), in the job report
};

// What a rule's evaluation gives: nothing (its condition does not hold, or its signals are
// absent), a Finding, or an error (it could not evaluate: recorded, the other rules still run).
using RuleResult = Result<std::optional<Finding>>;

struct RuleDef {
  const char* id;       // the finding id it produces (stable: used by --fail-on and JSON)
  const char* summary;  // one line: what it looks for
  // The bottleneck its findings name in the verdict; kUnknown for notes that name none
  // (memory headroom, outliers, a GPU log that cannot say what the GPU waits on).
  Bottleneck bottleneck = Bottleneck::kUnknown;
  RuleResult (*evaluate)(const Signals& s) = nullptr;
  unsigned needs = kNeedsNothing;  // RuleNeeds bits
  // Its finding says what the input lacks (device activity, steady-state steps), on which every
  // other finding rests: at moderate or above it ranks first, and the others are a partial view,
  // at most moderate.
  bool input_gap = false;
};

// Adapts a rule that cannot fail (most of them: they read signals that are there or absent)
// to RuleDef::evaluate.
template <std::optional<Finding> (*Rule)(const Signals&)>
RuleResult Infallible(const Signals& s) {
  return Rule(s);
}

// All rules, sorted by id.
const std::vector<RuleDef>& AllRules();

// The registered rule with this finding id, or nullptr.
const RuleDef* FindRule(std::string_view id);

// Runs every rule; a rule that cannot evaluate records a line in `diagnostics` and the others
// still run. Findings come back ranked: a finding of an input_gap rule first, then severity, then
// share of step time. Where such a finding is moderate or above, no other is more than moderate.
std::vector<Finding> RunRules(const Signals& s, std::vector<std::string>* diagnostics);
// The same over a given list of rules (tests hand in their own).
std::vector<Finding> RunRules(const std::vector<RuleDef>& rules, const Signals& s, std::vector<std::string>* diagnostics);

// Speed-up factor if `share_pct` of the step disappeared completely: 1 / (1 - share).
double GainIfRemoved(double share_pct);

}  // namespace stepdoctor
