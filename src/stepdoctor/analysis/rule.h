// A rule: a condition over Signals and, when it holds, a Finding with evidence, gain and fix.
// One rule per file in analysis/rules/, registered in the sorted list in rules/registry.cc.
#pragma once

#include <optional>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// What a rule needs the input to hold; a rule whose needs are not met is not evaluated (the
// report's coverage says what is missing), so it can never judge data the input lacks.
enum RuleNeeds : unsigned {
  kNeedsNothing = 0,
  kNeedsDeviceActivity = 1u << 0,  // device work recorded, or a CPU-only job (the CPU is the device)
};

struct RuleDef {
  const char* id;       // the finding id it produces (stable: used by --fail-on and JSON)
  const char* summary;  // one line: what it looks for
  std::optional<Finding> (*evaluate)(const Signals& s);
  unsigned needs = kNeedsNothing;  // RuleNeeds bits
};

// All rules, sorted by id.
const std::vector<RuleDef>& AllRules();

// Runs every rule; a rule that cannot evaluate records a line in `diagnostics` and the others
// still run. Findings come back ranked: severity first, then share of step time.
std::vector<Finding> RunRules(const Signals& s, std::vector<std::string>* diagnostics);

// Speed-up factor if `share_pct` of the step disappeared completely: 1 / (1 - share).
double GainIfRemoved(double share_pct);

}  // namespace stepdoctor
