// ReportFromJson, the inverse of RenderJson: a report built by hand with every section filled
// comes back rendering the same JSON, and bad input (another schema, truncated text, wrong types,
// missing keys) is a one-line error naming the key, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "render/json_round_trip.h"
#include "render/sample_report.h"
#include "stepdoctor/render/json_read.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// SampleReport with every section RenderJson writes filled, optional values both present and
// absent, numbers that are not finite (written as null) and text that needs escaping.
Report FullReport() {
  Report r = testing::SampleReport();
  r.coverage = {"pytorch", "captured", "markers", "high", {"3120 kernels"}, {"CUDA graphs", "torch.compile"}};
  r.steps.warmup.push_back({15, 0, 412.25, {}});
  r.breakdown_detail = {{"device_compute_16bit", 0, 40.5}, {"memcpy_h2d", 0, 1.0}, {"other_sync_wait", 0, kNaN}};
  r.devices[0].comm_comp_overlap_pct = 12.5;
  DeviceUtilization d2 = r.devices[0];
  d2.device = "GPU 1";
  d2.idle_pct = kNaN;
  d2.comm_comp_overlap_pct.reset();
  r.devices.push_back(d2);
  WorkerRow w0{"host (rank 0)", 0, 6, 150.2, 90, 55.5, 3.25, 46.8, 0.5, 12.75, 83.3, 0, {16, 17}, {149.4, 151}};
  WorkerRow w1{"host (rank 1)", 1, 6, 151.0, 91, 54.0, 4.0, 40.1, {}, {}, {}, {}, {}, {}};
  r.workers = {w0, w1};
  RankAlignmentSummary a;
  a.aligned = true;
  a.collectives_on = "device";
  a.matched = 12;
  a.steps = 6;
  a.unmatched_steps = 1;
  a.max_skew_ms = 0.125;
  a.collectives = {{"ncclKernel_AllReduce_RING_LL_Sum_float", 12, 12.5, 3.0}};
  r.alignment = a;
  TensorFlowView tf;
  tf.host = "localhost";
  tf.source = "localhost.overview_page.pb";
  tf.input_pct = 78.25;
  tf.step_ms = 30.5;
  tf.steps = 100;
  tf.bottleneck = "host";
  tf.recommendation = "Your program is HIGHLY input-bound";
  tf.other_statements = {"kernel launch: 2%"};
  tf.breakdown = {{"input: host wait", 23.9, 78.25}, {"device compute", 6.6, 21.75}};
  r.tensorflow_view = {tf, TensorFlowView{}};

  Prediction p;
  p.fix = "input";
  p.predicted = true;
  p.predicted_step_ms = 103.25;
  p.low_ms = 101;
  p.high_ms = 110.5;
  p.speedup = 1.472;
  p.bound_by = "device";
  p.assumptions = {"the loader keeps up with 8 workers"};
  r.findings[0].prediction = p;
  Prediction none;
  none.fix = "launch";
  none.why_not = "the step already runs compiled";
  r.findings[1].prediction = none;
  Finding s;
  s.id = "straggler";
  s.severity = FindingSeverity::kLow;
  s.title = "rank 1 \"arrives\" late\t\x01 at 12 \xc2\xb5s \\ per step";
  s.figures = {{"rank", 1}, {"late_ms_per_step", 12.75}, {"last_in_pct", kNaN}, {"rank", 1}};
  r.findings.push_back(s);

  CriticalPathSummary c;
  for (int i = 0; i < 3; ++i) {
    StepCriticalPath st;
    st.step = 16 + i;
    st.start_ms = i * 150.0;
    st.step_ms = 150 + i;
    st.path_ms = 150 + i;
    st.kind_ms = {40, 5, 100, 2, 3.0 + i};
    st.top = {{"aten::conv2d", PathKind::kKernel, 80.5, 12}, {"(untraced)", PathKind::kHost, 10, 3}};
    c.steps.push_back(st);
  }
  c.median_index = 1;
  c.steps[1].segments = {{150, 40, PathKind::kHost, "(untraced)", -1, 3},
                         {190, 100.0625, PathKind::kKernel, "volta_sgemm", 2, 40},
                         {290.0625, 10, PathKind::kWait, "cudaDeviceSynchronize", -1, 1}};
  r.critical_path = c;
  KernelTables k;
  k.ops = {{"aten::conv2d", 318, 636, 80.25, 12.5, {{"volta_sgemm", 318, 60.25, 11.5}, {"relu_kernel", 318, 20, 13.5}}}};
  k.delays = 3000;
  k.median_delay_us = 9.5;
  k.outlier_threshold_us = 1000;
  k.outlier_count = 2;
  k.outliers = {{"volta_sgemm", "cudaLaunchKernel", 2500.25, 301.5}};
  k.classes = {{"compute", 3000, 90.5, 30.25, 1.5, 900}, {"memory", 12, 10.4, 866.5, 2, 4000}};
  k.queues = {{"GPU 0 stream 7", 40, 3.25}};
  r.kernel_tables = k;
  return r;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(JsonRead, FullReportRoundTrips) {
  const Report r = FullReport();
  testing::ExpectJsonRoundTrip(r, "full report");
  auto back = ReportFromJson(RenderJson(r, {}));
  ASSERT_TRUE(back.ok()) << back.message();
  // What comes back is the report, not only the same text.
  EXPECT_EQ(back->verdict.bottleneck, Bottleneck::kInput);
  ASSERT_EQ(back->findings.size(), 3u);
  EXPECT_EQ(back->findings[0].severity, FindingSeverity::kHigh);
  ASSERT_TRUE(back->findings[0].prediction);
  EXPECT_TRUE(back->findings[0].prediction->predicted);
  EXPECT_EQ(back->findings[0].prediction->predicted_step_ms, 103.25);
  ASSERT_TRUE(back->findings[1].prediction);
  EXPECT_FALSE(back->findings[1].prediction->predicted);
  EXPECT_EQ(back->findings[1].prediction->why_not, "the step already runs compiled");
  EXPECT_FALSE(back->findings[2].prediction);
  EXPECT_EQ(back->findings[2].title, r.findings[2].title);
  ASSERT_EQ(back->findings[2].figures.size(), 4u);  // a name given twice is kept twice
  EXPECT_TRUE(std::isnan(back->findings[2].figures[2].second));
  ASSERT_EQ(back->breakdown.size(), r.breakdown.size());
  EXPECT_EQ(back->breakdown[3].category, "device_compute");
  EXPECT_EQ(back->breakdown[3].ms_per_step, 89.2);
  EXPECT_EQ(back->breakdown[3].pct, 59.5);
  EXPECT_EQ(back->devices[0].comm_comp_overlap_pct, 12.5);
  EXPECT_FALSE(back->devices[1].comm_comp_overlap_pct);
  EXPECT_FALSE(back->workers[1].wait_ms);
  EXPECT_EQ(back->workers[0].late_ms, 12.75);
  ASSERT_TRUE(back->alignment);
  EXPECT_EQ(back->alignment->collectives.at(0).calls, 12);
  ASSERT_TRUE(back->critical_path);
  EXPECT_EQ(back->critical_path->median_index, 1);
  ASSERT_EQ(back->critical_path->steps[1].segments.size(), 3u);
  EXPECT_EQ(back->critical_path->steps[1].segments[0].stream, -1);
  EXPECT_EQ(back->critical_path->steps[1].segments[1].stream, 2);
  EXPECT_EQ(back->critical_path->steps[1].segments[2].kind, PathKind::kWait);
  EXPECT_EQ(back->critical_path->steps[2].kind_ms[4], 5.0);
  ASSERT_TRUE(back->kernel_tables);
  EXPECT_EQ(back->kernel_tables->delays, 3000);
  EXPECT_EQ(back->kernel_tables->ops.at(0).rows.size(), 2u);
  EXPECT_EQ(back->tensorflow_view.at(0).input_pct, 78.25);
  EXPECT_FALSE(back->tensorflow_view.at(1).input_pct);
}

TEST(JsonRead, EmptyReportRoundTrips) {
  testing::ExpectJsonRoundTrip(Report{}, "empty report");
  auto back = ReportFromJson(RenderJson(Report{}, {}));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_FALSE(back->alignment);
  EXPECT_FALSE(back->critical_path);
  EXPECT_FALSE(back->kernel_tables);
}

// A double of 2^64 or more has no fraction, so RenderJson writes it as a long whole number; it
// reads back as the double it was (digits inside strings left as they are).
TEST(JsonRead, HugeNumbersRoundTrip) {
  Report r = FullReport();
  r.devices[0].span_us = 1e300;
  r.steps.max_ms = 1.5e19;
  r.findings[2].figures[1].second = -3e19;
  r.findings[0].title = "digits 12345678901234567890123 and -98765432109876543210.5e3 in a title \\\"1234567890123456789012\"";
  testing::ExpectJsonRoundTrip(r, "huge numbers");
  auto back = ReportFromJson(RenderJson(r, {}));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->devices[0].span_us, 1e300);
  EXPECT_EQ(back->steps.max_ms, 1.5e19);
  EXPECT_EQ(back->findings[2].figures[1].second, -3e19);
  EXPECT_EQ(back->findings[0].title, r.findings[0].title);
}

TEST(JsonRead, NameLookupsInvertTheNames) {
  for (int b = 0; b <= int(Bottleneck::kUnknown); ++b)
    EXPECT_EQ(BottleneckFromName(BottleneckName(Bottleneck(b))), Bottleneck(b));
  for (int s = 0; s <= int(FindingSeverity::kHigh); ++s)
    EXPECT_EQ(FindingSeverityFromName(FindingSeverityName(FindingSeverity(s))), FindingSeverity(s));
  for (int k = 0; k < kPathKindCount; ++k) EXPECT_EQ(PathKindFromName(PathKindName(PathKind(k))), PathKind(k));
  EXPECT_FALSE(BottleneckFromName("input-bound"));
  EXPECT_FALSE(FindingSeverityFromName("High"));
  EXPECT_FALSE(PathKindFromName(""));
}

TEST(JsonRead, IgnoresUnknownKeys) {
  const std::string json = RenderJson(FullReport(), {});
  std::string future = Replace(json, "{\n", "{\n  \"zz_later\": {\"a\": [1, \"x\", null]},\n");
  future = Replace(future, "\"id\": \"input_bound\",", "\"id\": \"input_bound\", \"zz_later\": 7,");
  auto back = ReportFromJson(future);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(testing::FirstDifference(RenderJson(*back, {}), json), "");
}

// critical_path and kernel_tables came within schema 4: a report written before lacks them.
TEST(JsonRead, ReportWithoutLaterKeysReads) {
  const std::string json = RenderJson(Report{}, {});
  std::string older = Replace(json, "  \"critical_path\": null,\n", "");
  older = Replace(older, "  \"kernel_tables\": null,\n", "");
  auto back = ReportFromJson(older);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(RenderJson(*back, {}), json);
}

void ExpectError(const std::string& json, const std::string& message, const char* what) {
  auto r = ReportFromJson(json);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.message(), message) << what;
}

TEST(JsonReadErrors, OtherSchemaVersion) {
  const std::string json = RenderJson(FullReport(), {});
  auto r = ReportFromJson(Replace(json, "\"schema_version\": 4,", "\"schema_version\": 3,"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::kUnknownFormat);
  EXPECT_EQ(r.message(), "report schema 3, this build reads 4");
  ExpectError(Replace(json, "\"schema_version\": 4,", "\"schema_version\": 5,"), "report schema 5, this build reads 4",
              "newer schema");
  ExpectError(Replace(json, "\"schema_version\": 4,", "\"schema_version\": \"4\","),
              "schema_version: expected an integer", "schema as a string");
}

TEST(JsonReadErrors, NotAReport) {
  for (const char* text : {"", "not json", "{\"schema_version\": 4", "\xff\xfe{}"}) {
    auto r = ReportFromJson(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.code(), ErrorCode::kCorruptInput);
    EXPECT_EQ(r.message().rfind("invalid JSON: ", 0), 0u) << r.message();
  }
  ExpectError("{}", "schema_version: missing", "empty object");
  ExpectError("[1, 2]", "the report is not a JSON object", "an array");
  ExpectError("{\"schema_version\": 4}", "tool_version: missing", "only a version");
}

TEST(JsonReadErrors, FindingWithNumericSeverity) {
  const std::string json = RenderJson(FullReport(), {});
  ExpectError(Replace(json, "\"severity\": \"high\"", "\"severity\": 3"), "findings[0].severity: expected a string",
              "numeric severity");
  ExpectError(Replace(json, "\"severity\": \"low\"", "\"severity\": \"urgent\""),
              "findings[2].severity: unknown severity 'urgent'", "unknown severity");
  ExpectError(Replace(json, "\"bottleneck\": \"input\"", "\"bottleneck\": \"disk\""),
              "verdict.bottleneck: unknown bottleneck 'disk'", "unknown bottleneck");
  ExpectError(Replace(json, "\"kind\": \"wait\"", "\"kind\": \"sleep\""),
              "critical_path.median_segments[2].kind: unknown path kind 'sleep'", "unknown path kind");
}

TEST(JsonReadErrors, MissingOrInconsistentKeys) {
  const std::string json = RenderJson(FullReport(), {});
  ExpectError(Replace(json, "      \"idle_pct\": 38.1,\n", ""), "devices[0].idle_pct: missing", "missing key");
  ExpectError(Replace(json, "\"breakdown_ms_per_step\": {\n    \"input\"", "\"breakdown_ms_per_step\": {\n    \"inputs\""),
              "breakdown_ms_per_step: does not list the categories of breakdown in its order", "breakdown keys");
  ExpectError(Replace(json, "\"median_step\": 17,", "\"median_step\": 99,"), "critical_path.median_step: no step 99 in steps",
              "median step");
  ExpectError(Replace(json, "\"rank\": 0,", "\"rank\": 9999999999,"), "workers[0].rank: 9999999999 is out of range",
              "int range");
  ExpectError(Replace(json, "\"rank\": 0,", "\"rank\": 100000000000000000000,"), "workers[0].rank: expected an integer",
              "past int64");
  ExpectError(Replace(json, "\"rank\": 0,", "\"rank\": 1.5,"), "workers[0].rank: expected an integer", "a fraction");
}

// Each scalar, empty container and null of a full report replaced by a value of another type: an
// error naming that key. This also shows the reader reads every key RenderJson writes.
TEST(JsonReadErrors, EveryValueOfTheWrongType) {
  const std::string json = RenderJson(FullReport(), {});
  std::istringstream in(json);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  int tried = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const size_t q = line.find('"');
    const size_t colon = line.find("\": ", q == std::string::npos ? 0 : q + 1);
    if (q == std::string::npos || colon == std::string::npos) continue;
    const std::string key = line.substr(q + 1, colon - q - 1);
    std::string value = line.substr(colon + 3);
    const bool comma = !value.empty() && value.back() == ',';
    if (comma) value.pop_back();
    if (value == "{" || value == "[") continue;  // a container that goes on: its items are tried
    const std::string wrong = value[0] == '"' ? "7" : "\"x\"";
    std::string changed;
    for (size_t k = 0; k < lines.size(); ++k)
      changed += (k == i ? line.substr(0, colon + 3) + wrong + (comma ? "," : "") : lines[k]) + "\n";
    auto r = ReportFromJson(changed);
    ++tried;
    ASSERT_FALSE(r.ok()) << "line " << i << ": " << line;
    EXPECT_NE(r.message().find(key + ": expected"), std::string::npos) << line << " -> " << r.message();
    EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
  }
  EXPECT_GT(tried, 150);
}

TEST(JsonReadErrors, TruncatedAnywhere) {
  const std::string json = RenderJson(FullReport(), {});
  ASSERT_GT(json.size(), 2u);
  // Every prefix short of the closing brace.
  for (size_t n = 0; n + 2 < json.size(); ++n) {
    auto r = ReportFromJson(std::string_view(json).substr(0, n));
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes";
    EXPECT_FALSE(r.message().empty());
  }
  EXPECT_TRUE(ReportFromJson(std::string_view(json).substr(0, json.size() - 1)).ok());  // all but the newline
}

}  // namespace
}  // namespace stepdoctor
