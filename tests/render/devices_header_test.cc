// The text's Devices table: its header names the steps the trace has (ProfilerStep markers, other
// steps, or one window), and a share that rounds to zero prints as 0.0, never -0.0. Step times
// under a millisecond print in microseconds.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

Report WithOneDevice(const std::string& source, bool whole_window) {
  Report r;
  r.steps.count = 1;
  r.steps.source = source;
  r.steps.whole_window = whole_window;
  r.steps.median_ms = r.steps.mean_ms = 10;
  DeviceUtilization d;
  d.worker = "w";
  d.device = "GPU 0";
  d.span_us = 1000;
  d.idle_pct = 0.2;
  d.compute_pct = 100.01;
  d.non_compute_pct = -0.01;
  r.devices.push_back(d);
  return r;
}

TEST(DevicesHeader, NamesTheStepsTheTraceHas) {
  EXPECT_NE(RenderText(WithOneDevice("ProfilerStep#N markers", false), {}).find("launched before the last ProfilerStep;"),
            std::string::npos);
  const std::string tf1 = RenderText(WithOneDevice("the one sess.run a TF1 timeline records", false), {});
  EXPECT_EQ(tf1.find("ProfilerStep"), std::string::npos) << tf1;
  EXPECT_NE(tf1.find("launched before the last step;"), std::string::npos) << tf1;
  EXPECT_NE(RenderText(WithOneDevice("", true), {}).find("activity in the window;"), std::string::npos);
}

TEST(DevicesHeader, NoNegativeZero) {
  const std::string text = RenderText(WithOneDevice("ProfilerStep#N markers", false), {});
  EXPECT_EQ(text.find("-0.0"), std::string::npos) << text;
}

// Steps under a millisecond print in microseconds: a 47 us step is not "0.0 ms".
TEST(DevicesHeader, StepsUnderAMillisecondInMicroseconds) {
  Report r = WithOneDevice("ProfilerStep#N markers", false);
  r.steps.count = 4;
  r.steps.median_ms = r.steps.mean_ms = 0.0467;
  r.steps.p90_ms = r.steps.max_ms = 0.0474;
  r.breakdown = {{"device_compute", 0.0465, 99.5}, {"host_compute", 0.0002, 0.5}};
  const std::string text = RenderText(r, {});
  EXPECT_NE(text.find("median 46.7 us, p90 47.4 us, max 47.4 us"), std::string::npos) << text;
  EXPECT_NE(text.find("(mean 46.7 us per step)"), std::string::npos) << text;
  EXPECT_NE(text.find("46.5 us   99.5%"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.0 ms"), std::string::npos) << text;
  // From a millisecond on, milliseconds.
  r.steps.median_ms = r.steps.mean_ms = 12.5;
  EXPECT_NE(RenderText(r, {}).find("median 12.5 ms"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor
