// Round trip of the JSON report for the reader's tests: render, read back, render again.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "stepdoctor/render/json_read.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::testing {

// "" where a == b; otherwise where they first differ, with a little of each around it.
inline std::string FirstDifference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  const size_t from = at < 80 ? 0 : at - 80;
  return "byte " + std::to_string(at) + ": ..." + a.substr(from, 160) + "\n  vs ..." + b.substr(from, 160);
}

// RenderJson(ReportFromJson(RenderJson(r))) == RenderJson(r); `what` names r in failures.
inline void ExpectJsonRoundTrip(const Report& r, const std::string& what) {
  const std::string json = RenderJson(r, {});
  auto back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << what << ": " << back.message();
  const std::string diff = FirstDifference(RenderJson(*back, {}), json);
  EXPECT_TRUE(diff.empty()) << what << ": " << diff;
}

}  // namespace stepdoctor::testing
