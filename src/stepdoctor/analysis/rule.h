// A rule: a condition over Signals and, when it holds, a Finding with evidence, gain and fix.
// One rule per file in analysis/rules/, registered in the sorted list in rules/registry.cc.
#pragma once

#include <optional>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

struct RuleDef {
  const char* id;       // the finding id it produces (stable: used by --fail-on and JSON)
  const char* summary;  // one line: what it looks for
  std::optional<Finding> (*evaluate)(const Signals& s);
};

// All rules, sorted by id.
const std::vector<RuleDef>& AllRules();

// Runs every rule; a rule that cannot evaluate records a line in `diagnostics` and the others
// still run. Findings come back ranked: severity first, then share of step time.
std::vector<Finding> RunRules(const Signals& s, std::vector<std::string>* diagnostics);

// Speed-up factor if `share_pct` of the step disappeared completely: 1 / (1 - share).
double GainIfRemoved(double share_pct);

}  // namespace stepdoctor
