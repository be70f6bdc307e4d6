// TensorFlow profiler's own verdict (the profile plugin's overview_page.pb / input_pipeline.pb),
// read from the wire format and shown beside stepdoctor's.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"
#include "stepdoctor/render/render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// A protobuf writer just big enough to build pages in the test.
struct Pb {
  std::string b;
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      b += char(v | 0x80);
      v >>= 7;
    }
    b += char(v);
  }
  Pb& Double(uint32_t f, double d) {
    Varint(uint64_t(f) << 3 | 1);
    char raw[8];
    std::memcpy(raw, &d, 8);
    b.append(raw, 8);
    return *this;
  }
  Pb& Bytes(uint32_t f, const std::string& s) {
    Varint(uint64_t(f) << 3 | 2);
    Varint(s.size());
    b += s;
    return *this;
  }
  Pb& Msg(uint32_t f, const Pb& m) { return Bytes(f, m.b); }
};

Pb Summary(double avg) { return Pb().Double(1, avg); }
Pb Any(const std::string& type, const Pb& value) {
  return Pb().Bytes(1, "type.googleapis.com/tensorflow.profiler." + type).Msg(2, value);
}

// An overview page: 100 ms steps, 30 ms waiting for input (host wait 28 + host-to-device 2),
// 60 ms device compute, 10 ms all others; input_pct as given.
std::string OverviewPage(double input_pct) {
  Pb breakdown;
  breakdown.Msg(9, Summary(28)).Msg(10, Summary(2)).Msg(11, Summary(30)).Msg(4, Summary(60)).Msg(1, Summary(10));
  Pb ba;
  ba.Bytes(1, "host").Bytes(2, "Your program is input-bound.").Bytes(3, "high").Bytes(4, "Kernel launch is <b>high</b>.");
  Pb rec_ipa;
  rec_ipa.Msg(2, Any("BottleneckAnalysis", ba));
  Pb ipa;
  ipa.Msg(2, Summary(100)).Double(11, input_pct).Msg(7, rec_ipa).Msg(8, Any("GenericStepTimeBreakdown", breakdown));
  for (int i = 0; i < 3; ++i) ipa.Msg(4, Any("PerGenericStepDetails", Pb()));
  Pb rec;
  rec.Bytes(1, "host").Bytes(2, "Your program is <b>HIGHLY</b> input-bound.");
  Pb page;
  page.Msg(2, ipa).Msg(4, rec);
  return page.b;
}

TEST(TfProfilerPages, InlineOverviewPage) {
  auto v = ParseTfProfilerPage(OverviewPage(30.0), TfProfilerPageKind::kOverviewPage, "run/localhost.overview_page.pb");
  ASSERT_TRUE(v.ok()) << v.message();
  EXPECT_EQ(v->host, "localhost");
  EXPECT_DOUBLE_EQ(v->input_pct, 30.0);
  EXPECT_DOUBLE_EQ(v->step_ms, 100.0);
  EXPECT_EQ(v->steps, 3);
  EXPECT_EQ(v->bottleneck, "host");
  EXPECT_EQ(v->statement, "Your program is HIGHLY input-bound.");  // markup removed
  ASSERT_EQ(v->other_statements.size(), 1u);
  EXPECT_EQ(v->other_statements[0], "Kernel launch is high.");
  // TF's own categories, input_ms (wait + host-to-device) not double counted.
  double sum = 0;
  for (const auto& [name, ms] : v->breakdown_ms) sum += ms;
  EXPECT_DOUBLE_EQ(sum, 100.0);
}

TEST(TfProfilerPages, NotProtobufIsAClearError) {
  auto v = ParseTfProfilerPage("\xff\xff\xff", TfProfilerPageKind::kOverviewPage, "x.overview_page.pb");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.message().find("x.overview_page.pb"), std::string::npos);
}

// A Kineto step of 1 ms that waits 0.5 ms on the DataLoader: our input share is 50%.
Trace HalfInputBoundTrace() {
  const char* json = R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 0, "dur": 500},
    {"ph": "X", "cat": "kernel", "name": "volta_sgemm", "pid": 0, "tid": 7, "ts": 500, "dur": 500, "args": {"device": 0}}
  ]})";
  Trace t;
  auto src = MemorySource(json, "inline.json");
  EXPECT_TRUE(ImportChromeJson(*src, t, nullptr, {}).ok());
  return t;
}

std::string Disagreement(const Report& r) {
  for (const auto& d : r.diagnostics)
    if (d.find("TensorFlow's profiler puts input") != std::string::npos) return d;
  return {};
}

TEST(TfProfilerPages, DisagreementOverFivePointsIsADiagnostic) {
  for (double tf_pct : {56.0, 54.0, 44.5}) {
    Trace t = HalfInputBoundTrace();
    auto v = ParseTfProfilerPage(OverviewPage(tf_pct), TfProfilerPageKind::kOverviewPage, "localhost.overview_page.pb");
    ASSERT_TRUE(v.ok());
    t.tf_verdicts.push_back(*v);
    Report r = AnalyzeTrace(t);
    ASSERT_EQ(r.tensorflow_view.size(), 1u);
    ASSERT_TRUE(r.tensorflow_view[0].input_pct.has_value());
    EXPECT_DOUBLE_EQ(*r.tensorflow_view[0].input_pct, tf_pct);
    bool apart = tf_pct > 55.0 || tf_pct < 45.0;
    EXPECT_EQ(!Disagreement(r).empty(), apart) << tf_pct;
    // Every renderer shows TensorFlow's words.
    for (const char* f : {"text", "json", "md", "html"})
      EXPECT_NE(FindRenderer(f)(r, {}).find("HIGHLY input-bound"), std::string::npos) << f;
  }
}

// tf-profiler-demo (SOURCES.md, EXPECTED.md): TensorFlow wrote "HIGHLY input-bound because 81.4%
// of the total step time sampled is waiting for input" for a ResNet-50 on 8 GPUs.
TEST(TfProfilerPages, DemoInputBoundRun) {
  SD_CORPUS_OR_SKIP(dir, "tf-profiler-demo/plugins/profile/GPU-input-bound");
  auto imp = ImportPaths({dir});
  ASSERT_TRUE(imp.ok()) << imp.message();
  Report r = AnalyzeTrace(imp->trace);
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  const TensorFlowView& v = r.tensorflow_view[0];
  EXPECT_EQ(v.host, "localhost");
  EXPECT_EQ(v.bottleneck, "host");
  ASSERT_TRUE(v.input_pct.has_value());
  EXPECT_NEAR(*v.input_pct, 81.4, 0.05);
  EXPECT_NEAR(v.step_ms, 1114.5, 0.1);
  EXPECT_NE(v.recommendation.find("HIGHLY input-bound because 81.4%"), std::string::npos);
  // The input wait (907 ms of the 1114 ms step) is TF's largest category.
  ASSERT_FALSE(v.breakdown.empty());
  EXPECT_EQ(v.breakdown[0].category, "input: host wait");
  EXPECT_NEAR(v.breakdown[0].ms_per_step, 907.2, 0.1);
  EXPECT_NE(r.verdict.summary.find("TensorFlow's profiler says"), std::string::npos);
}

// The compute-bound demo run: "NOT input-bound ... 0.0%", kernel launch 18.1% and all others 39.7% high.
TEST(TfProfilerPages, DemoComputeBoundRun) {
  SD_CORPUS_OR_SKIP(dir, "tf-profiler-demo/plugins/profile/GPU-compute-bound");
  auto imp = ImportPaths({dir});
  ASSERT_TRUE(imp.ok()) << imp.message();
  Report r = AnalyzeTrace(imp->trace);
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  const TensorFlowView& v = r.tensorflow_view[0];
  EXPECT_EQ(v.bottleneck, "device");
  ASSERT_TRUE(v.input_pct.has_value());
  EXPECT_LT(*v.input_pct, 0.1);
  ASSERT_EQ(v.other_statements.size(), 2u);
  EXPECT_NE(v.other_statements[0].find("18.1 %"), std::string::npos);
  EXPECT_NE(v.other_statements[1].find("39.7 %"), std::string::npos);
  // The breakdown read from the page agrees with the shares TensorFlow's own statements quote.
  double launch = -1, others = -1;
  for (const auto& b : v.breakdown) {
    if (b.category == "kernel launch") launch = b.pct;
    if (b.category == "all others") others = b.pct;
  }
  EXPECT_NEAR(launch, 18.1, 0.05);
  EXPECT_NEAR(others, 39.7, 0.06);
}

}  // namespace
}  // namespace stepdoctor
