// A job of many ranks: the text, Markdown and HTML tables show at most kMaxRankRows devices and
// ranks (the most idle devices, the ranks the others wait for most) and say how many more the
// JSON report lists; JSON lists them all.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

Report ManyDevices(size_t n) {
  Report r;
  for (size_t i = 0; i < n; ++i) {
    DeviceUtilization d;
    d.worker = fmt::format("host{}", i);
    d.device = "GPU 0";
    d.idle_pct = double(i);  // the last ones are the most idle
    d.compute_pct = 100.0 - double(i);
    r.devices.push_back(d);
  }
  return r;
}

size_t Count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

TEST(LargeJobRows, DevicesCappedMostIdleFirst) {
  const size_t n = kMaxRankRows + 9;
  const Report r = ManyDevices(n);
  const std::vector<size_t> shown = DeviceRowsShown(r);
  ASSERT_EQ(shown.size(), kMaxRankRows);
  EXPECT_EQ(shown.front(), n - 1);  // the most idle
  const std::string text = RenderText(r, {});
  EXPECT_NE(text.find("9 more devices"), std::string::npos) << text;
  EXPECT_EQ(text.find(fmt::format("host{} ", 0)), std::string::npos);  // the least idle is left out
  EXPECT_NE(RenderMarkdown(r, {}).find("9 more devices"), std::string::npos);
  EXPECT_NE(RenderHtml(r, {}).find("9 more devices"), std::string::npos);
  EXPECT_EQ(Count(RenderJson(r, {}), "\"device\": \"GPU 0\""), n);
}

TEST(LargeJobRows, SmallJobsShowEveryDevice) {
  const Report r = ManyDevices(kMaxRankRows);
  EXPECT_EQ(DeviceRowsShown(r).size(), kMaxRankRows);
  EXPECT_EQ(RenderText(r, {}).find("more devices"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
