// The settings `stepdoctor tune` tries (docs/tune.md): knobs, each a list of values whose first
// is the baseline's, and how one combination of values becomes a command to run.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stepdoctor/core/result.h"

namespace stepdoctor::tune {

// How a knob reaches the job.
enum class KnobKind {
  kEnv,       // an environment variable
  kArgv,      // substituted where {NAME} appears in the command's arguments
  kAffinity,  // the CPUs the job may run on (sched_setaffinity), as a list like "0-3,8"
};

// The name of the CPU-affinity knob (no environment variable can be called this).
inline constexpr const char* kAffinityKnob = "cpu-affinity";

struct Knob {
  std::string name;
  KnobKind kind = KnobKind::kEnv;
  // values[0] is the baseline's. A built-in knob's baseline is "what the job inherits": an empty
  // values[0] with `inherited` set, so the variable (or affinity) is left as it is.
  std::vector<std::string> values;
  bool inherited = false;
  std::string why;  // built-in knobs: one line on what it changes
};

// "NAME=v1,v2,...": a user knob, values[0] its baseline. It is kArgv when "{NAME}" appears in
// `command`, kAffinity for cpu-affinity, else kEnv. Errors name the flag and the reason.
Result<Knob> ParseKnobFlag(const std::string& text, const std::vector<std::string>& command);

// A combination of values: one index into each knob's values, in the knobs' order.
using Setting = std::vector<size_t>;

// What one trial runs.
struct TrialSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // set for this trial
  std::vector<int> cpus;                                  // empty: inherited
  std::string affinity;                                   // the cpu-affinity value, for display
  bool profile = false;  // --profile: this run is sampled (and its traces kept) for the diagnosis
};

// The command with `setting` applied: {NAME} substituted, variables set, affinity parsed.
// REQUIRED: setting.size() == knobs.size(), each index within its knob's values.
Result<TrialSpec> ApplySetting(const std::vector<std::string>& command, const std::vector<Knob>& knobs,
                               const Setting& setting);

// "NAME=value" for display; an inherited baseline is "NAME unset" (or "cpu-affinity inherited").
std::string KnobValueText(const Knob& k, size_t index);

// `text` with every `token` replaced by `with` (the replacements are not searched again).
std::string ReplaceAll(const std::string& text, const std::string& token, const std::string& with);

// "0-3,8" -> {0,1,2,3,8}; an error for anything else.
Result<std::vector<int>> ParseCpuList(const std::string& text);

}  // namespace stepdoctor::tune
