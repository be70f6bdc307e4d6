// The what-if's first prediction for one fix on a trace, for tests that build their traces inline.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/whatif.h"

namespace stepdoctor::testing {

inline Prediction PredictFix(const Trace& t, const std::string& fix) {
  auto f = ParseFix(fix);
  EXPECT_TRUE(f.ok()) << fix;
  if (!f.ok()) return {};
  WhatIfReport r = TraceToWhatIf(t, {*f}, {});
  return r.predictions.empty() ? Prediction{} : r.predictions[0];
}

}  // namespace stepdoctor::testing
