// TensorFlow profiler's own verdict (the profile plugin's overview_page.pb / input_pipeline.pb),
// read from the wire format and shown beside stepdoctor's.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"
#include "stepdoctor/render/json_read.h"
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
  Pb& Int(uint32_t f, uint64_t v) {
    Varint(uint64_t(f) << 3);
    Varint(v);
    return *this;
  }
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

// One TfStatsRecord (tf_stats.proto): side, op type, occurrences, total self time, eager or not.
Pb StatsRecord(const char* side, const char* type, uint64_t n, double self_us, bool eager) {
  Pb r;
  r.Bytes(2, side).Bytes(3, type).Bytes(4, std::string(type) + "/op").Int(5, n).Double(8, self_us);
  if (eager) r.Int(18, 1);
  return r;
}

// An op statistics page: the device idle 600 of 1000 us; busy in MatMul 300 us (two ops) and
// Relu 100 us; the host runs Dataset 200 us and AddV2 `host_eager_us`, eagerly where given.
std::string TfStatsPage(double host_eager_us, bool with_without_idle_table) {
  Pb with_idle, without_idle;
  for (Pb* t : {&with_idle, &without_idle}) {
    if (t == &with_idle) t->Msg(1, StatsRecord("Device", "IDLE", 3, 600, false));
    t->Msg(1, StatsRecord("Device", "MatMul", 4, 200, false)).Msg(1, StatsRecord("Device", "MatMul", 2, 100, false));
    t->Msg(1, StatsRecord("Device", "Relu", 6, 100, false)).Msg(1, StatsRecord("Host", "Dataset", 9, 200, false));
    t->Msg(1, StatsRecord("Host", "AddV2", 5, host_eager_us, host_eager_us > 0));
  }
  Pb db;
  db.Msg(4, with_idle);
  if (with_without_idle_table) db.Msg(5, without_idle);
  db.Bytes(6, "GPU");
  return db.b;
}

TEST(TfProfilerPages, OpStatisticsPage) {
  EXPECT_EQ(TfProfilerPageKindOf("run/localhost.tensorflow_stats.pb"), TfProfilerPageKind::kTfStats);
  for (bool both_tables : {true, false}) {
    auto v = ParseTfProfilerPage(TfStatsPage(50, both_tables), TfProfilerPageKind::kTfStats, "run/localhost.tensorflow_stats.pb");
    ASSERT_TRUE(v.ok()) << v.message();
    EXPECT_TRUE(v->op_stats);
    EXPECT_EQ(v->host, "localhost");
    EXPECT_EQ(v->device, "GPU");
    EXPECT_DOUBLE_EQ(v->device_idle_pct, 60.0);  // 600 of 1000 us
    // Device rows first, by self time; one row per type; IDLE is not an op type.
    ASSERT_EQ(v->op_types.size(), 4u);
    EXPECT_TRUE(v->op_types[0].device);
    EXPECT_EQ(v->op_types[0].type, "MatMul");
    EXPECT_EQ(v->op_types[0].occurrences, 6);
    EXPECT_DOUBLE_EQ(v->op_types[0].self_ms, 0.3);
    EXPECT_DOUBLE_EQ(v->op_types[0].pct, 75.0);  // of the device's 400 busy us
    EXPECT_EQ(v->op_types[1].type, "Relu");
    EXPECT_FALSE(v->op_types[2].device);
    EXPECT_EQ(v->op_types[2].type, "Dataset");
    EXPECT_DOUBLE_EQ(v->eager_host_pct, 20.0);  // 50 of 250 us
    EXPECT_DOUBLE_EQ(v->eager_device_pct, 0.0);
  }
}

TEST(TfProfilerPages, OpStatisticsAloneSayWhatTheyMeasureBothSides) {
  // Eager host ops at 20% of the host's op time are named; none eager: nothing said of it.
  for (double eager_us : {50.0, 0.0}) {
    Trace t;
    auto v = ParseTfProfilerPage(TfStatsPage(eager_us, true), TfProfilerPageKind::kTfStats, "localhost.tensorflow_stats.pb");
    ASSERT_TRUE(v.ok());
    t.tf_verdicts.push_back(*v);
    Report r = AnalyzeTrace(t);
    EXPECT_EQ(r.coverage.confidence, "low");
    EXPECT_NE(r.verdict.summary.find("TensorFlow's op statistics: the device is idle 60.0%"), std::string::npos) << r.verdict.summary;
    EXPECT_NE(r.verdict.summary.find("MatMul (75.0%)"), std::string::npos) << r.verdict.summary;
    EXPECT_EQ(r.verdict.summary.find("eagerly") != std::string::npos, eager_us > 0) << r.verdict.summary;
    ASSERT_EQ(r.tensorflow_view.size(), 1u);
    for (const char* f : {"text", "json", "md", "html"})
      EXPECT_NE(FindRenderer(f)(r, {}).find("MatMul"), std::string::npos) << f;
    // The JSON report reads back with the op statistics.
    auto back = ReportFromJson(FindRenderer("json")(r, {}));
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_EQ(back->tensorflow_view.size(), 1u);
    EXPECT_EQ(back->tensorflow_view[0].op_types.size(), 4u);
    ASSERT_TRUE(back->tensorflow_view[0].device_idle_pct.has_value());
    EXPECT_DOUBLE_EQ(*back->tensorflow_view[0].device_idle_pct, 60.0);
  }
}

TEST(TfProfilerPages, OpStatisticsWithARecommendationKeepIt) {
  // Beside the overview page of the same host, TensorFlow's recommendation stays the summary and
  // the op statistics join its view.
  Trace t;
  auto page = ParseTfProfilerPage(OverviewPage(30.0), TfProfilerPageKind::kOverviewPage, "localhost.overview_page.pb");
  auto stats = ParseTfProfilerPage(TfStatsPage(0, true), TfProfilerPageKind::kTfStats, "localhost.tensorflow_stats.pb");
  ASSERT_TRUE(page.ok() && stats.ok());
  t.tf_verdicts = {*stats, *page};
  Report r = AnalyzeTrace(t);
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  EXPECT_NE(r.verdict.summary.find("HIGHLY input-bound"), std::string::npos);
  EXPECT_EQ(r.tensorflow_view[0].op_types.size(), 4u);
}

TEST(TfProfilerPages, OpStatisticsOfAPageThatIsNotProtobufIsAClearError) {
  auto v = ParseTfProfilerPage("\xff\xff\xff", TfProfilerPageKind::kTfStats, "x.tensorflow_stats.pb");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.message().find("x.tensorflow_stats.pb"), std::string::npos);
}

// The input-bound demo run's op statistics: the device idle share agrees with the share TensorFlow
// wrote into the IDLE row itself (device_total_self_time_as_fraction 0.8390) and with its
// overview page (81.4% of step time waiting for input); the busy device time is convolutions.
TEST(TfProfilerPages, DemoInputBoundRunOpStatistics) {
  SD_CORPUS_OR_SKIP(dir, "tf-profiler-demo/plugins/profile/GPU-input-bound/localhost.tensorflow_stats.pb");
  auto imp = ImportPaths({dir});
  ASSERT_TRUE(imp.ok()) << imp.message();
  ASSERT_EQ(imp->trace.tf_verdicts.size(), 1u);
  const TfProfilerVerdict& v = imp->trace.tf_verdicts[0];
  EXPECT_NEAR(v.device_idle_pct, 83.90, 0.01);
  ASSERT_FALSE(v.op_types.empty());
  EXPECT_TRUE(v.op_types[0].device);
  EXPECT_NE(v.op_types[0].type.find("Conv2D"), std::string::npos);
  Report r = AnalyzeTrace(imp->trace);
  EXPECT_NE(r.verdict.summary.find("idle 83.9%"), std::string::npos) << r.verdict.summary;
}

}  // namespace
}  // namespace stepdoctor
