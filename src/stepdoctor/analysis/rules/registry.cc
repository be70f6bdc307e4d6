// The sorted list of rules.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor {

const std::vector<RuleDef>& AllRules() {
  static const std::vector<RuleDef> kRules = {
      {"compute_bound", "the device is busy most of the step: name the next levers", &rules::ComputeBound},
      {"host_bound", "the device idles while the host launches kernels or runs framework code", &rules::HostBound},
      {"input_bound", "the step waits on the input pipeline", &rules::InputBound},
      {"step_time_outliers", "slow steps that stand out, and whether they recur with a period",
       &rules::StepTimeOutliers},
  };
  return kRules;
}

}  // namespace stepdoctor
