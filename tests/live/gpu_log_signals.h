// A GPU log's resource signals (and, where asked, its report) from CSV text: shared by the
// GPU-log tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "test_util.h"

namespace stepdoctor::testing {

inline std::unique_ptr<ResourceSignals> GpuLogSignals(const std::string& csv, Report* report = nullptr) {
  Trace t;
  Status st = ImportText(csv, "gpu.csv", &t);
  EXPECT_TRUE(st.ok()) << st.message();
  if (report) *report = AnalyzeTrace(t);
  return ComputeResourceSignals(t);
}

}  // namespace stepdoctor::testing
