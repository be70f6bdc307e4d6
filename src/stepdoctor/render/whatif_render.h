// The what-if report as text for people and JSON for machines (keys in docs/whatif.md), and the
// one-line form a diagnosis prints beside a finding.
#pragma once

#include <string>

#include "stepdoctor/report/whatif.h"

namespace stepdoctor {

std::string RenderWhatIfText(const WhatIfReport& r);
std::string RenderWhatIfJson(const WhatIfReport& r);
// "predicted 123 ms per step (1.24x; 117-129 ms)" or "cannot predict: REASON".
std::string PredictionLine(const Prediction& p);

}  // namespace stepdoctor
