// TensorFlow profiler's own verdict from its pages' JSON form (arrays of google-chart DataTables:
// older TensorBoard's <host>.overview_page.json, xprof's converted *_overview_page_*.json.gz).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/tfprofile/profile_tables_to_trace.h"
#include "stepdoctor/render/render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// An overview page: a top-operations table (operation names as given), a step table of two steps
// (compute 80/90 ms, input 20/10 ms; TF's own average 100 ms, 15% input), the run environment
// and the recommendation.
std::string OverviewTables(const std::string& op, const std::string& steptime_avg = "100.0") {
  return R"J([{"cols":[{"id":"selfTimePercent","type":"number"},{"id":"operation","type":"string"}],
     "rows":[{"c":[{"v":0.4},{"v":")J" + op + R"J("}]}]},
   {"cols":[{"id":"stepnum","type":"string"},
            {"id":"computeTimeMs","label":"Compute time (in ms)","type":"number"},
            {"id":"inputTimeMs","label":"Input time (in ms)","type":"number"},
            {"id":"tooltip","type":"string"},
            {"id":"infeedPercentAverage","type":"number"}],
     "rows":[{"c":[{"v":"0"},{"v":80},{"v":20},{"v":"step 0"},{"v":20}]},
             {"c":[{"v":"1"},{"v":90.0},{"v":10.0},{"v":"step 1"},{"v":10}]}],
     "p":{"steptime_ms_average":")J" + steptime_avg + R"J(","infeed_percent_average":"15.0",
          "input_conclusion":"Your program is MODERATELY input-bound because 15.0% of the total step time sampled is waiting for input."}},
   {"cols":[{"id":"host_id","type":"string"}],"rows":[],"p":{"device_type":"TPU v4"}},
   {"cols":[{"id":"tip_type","type":"string"},{"id":"link","type":"string"}],"rows":[],
     "p":{"bottleneck":"host","statement":"Your program is <b>MODERATELY</b> input-bound.",
          "kernel_launch_bottleneck":"high","kernel_launch_statement":"18.0 % of the time is kernel launch.",
          "all_other_bottleneck":"no","all_other_statement":"Little other time."}}])J";
}

TEST(TfProfilerTables, OverviewPageFigures) {
  auto v = ParseTfProfilerTables(OverviewTables("while/body/_1/resnet50/conv1/Conv2D"), TfProfilerPageKind::kOverviewPage,
                                 "run/10.0.0.1.overview_page.json");
  ASSERT_TRUE(v.ok()) << v.message();
  EXPECT_TRUE(v->overview);
  EXPECT_EQ(v->host, "10.0.0.1");
  EXPECT_EQ(v->device, "TPU v4");
  EXPECT_EQ(v->bottleneck, "host");
  // The recommendation's statement (markup removed) over the input table's conclusion.
  EXPECT_EQ(v->statement, "Your program is MODERATELY input-bound.");
  ASSERT_EQ(v->other_statements.size(), 1u);  // all_other says "no"
  EXPECT_EQ(v->other_statements[0], "18.0 % of the time is kernel launch.");
  EXPECT_EQ(v->steps, 2);
  EXPECT_DOUBLE_EQ(v->step_ms, 100.0);
  EXPECT_DOUBLE_EQ(v->input_pct, 15.0);
  // Only the "...TimeMs" columns, averaged over the rows, in TF's words.
  ASSERT_EQ(v->breakdown_ms.size(), 2u);
  EXPECT_EQ(v->breakdown_ms[0].first, "Compute time");
  EXPECT_DOUBLE_EQ(v->breakdown_ms[0].second, 85.0);
  EXPECT_EQ(v->breakdown_ms[1].first, "Input time");
  EXPECT_DOUBLE_EQ(v->breakdown_ms[1].second, 15.0);
}

TEST(TfProfilerTables, NotTablesIsAClearError) {
  auto obj = ParseTfProfilerTables(R"({"traceEvents":[]})", TfProfilerPageKind::kOverviewPage, "h.overview_page.json");
  ASSERT_FALSE(obj.ok());
  EXPECT_EQ(obj.code(), ErrorCode::kUnknownFormat);
  EXPECT_NE(obj.message().find("h.overview_page.json"), std::string::npos);
  auto bad = ParseTfProfilerTables("[{\"cols\": [", TfProfilerPageKind::kOverviewPage, "h.overview_page.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::kCorruptInput);
  EXPECT_NE(bad.message().find("bad JSON"), std::string::npos);
  auto none = ParseTfProfilerTables(R"([{"cols":[{"id":"x"}],"rows":[]}])", TfProfilerPageKind::kInputPipeline,
                                    "h.input_pipeline.json");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.code(), ErrorCode::kUnknownFormat);
}

TEST(TfProfilerTables, KindFromName) {
  EXPECT_EQ(TfProfilerTablesKindOf("p/10.240.1.50.overview_page.json"), TfProfilerPageKind::kOverviewPage);
  EXPECT_EQ(TfProfilerTablesKindOf("data_tpu_overview_page_tpu.json.gz"), TfProfilerPageKind::kOverviewPage);
  EXPECT_EQ(TfProfilerTablesKindOf("h.input_pipeline.json"), TfProfilerPageKind::kInputPipeline);
  EXPECT_EQ(TfProfilerTablesKindOf("x_input_pipeline_analyzer_y.json.gz"), TfProfilerPageKind::kInputPipeline);
  EXPECT_EQ(TfProfilerTablesKindOf("h.overview_page.pb"), TfProfilerPageKind::kNone);  // the protobuf form
  EXPECT_EQ(TfProfilerTablesKindOf("h.pod_viewer.json"), TfProfilerPageKind::kNone);
}

Report ReportOfPage(const std::string& file, const std::string& json, Framework* framework = nullptr) {
  std::string dir = testing::MakeTempDir("tables");
  std::ofstream(dir + "/" + file) << json;
  auto imp = ImportPaths({dir + "/" + file});
  EXPECT_TRUE(imp.ok()) << imp.message();
  if (!imp.ok()) return {};
  if (framework) *framework = imp->trace.framework;
  return AnalyzeTrace(imp->trace);
}

// Pages alone: TensorFlow's verdict leads, the coverage says only pages were read, and the
// framework is the one the operations' names show (both frameworks' profilers write the pages).
TEST(TfProfilerTables, PagesAloneReport) {
  Framework fw = Framework::kUnknown;
  Report tf = ReportOfPage("h.overview_page.json", OverviewTables("resnet50/conv1/Conv2D"), &fw);
  EXPECT_EQ(fw, Framework::kTensorFlow);
  EXPECT_NE(tf.verdict.summary.find("TensorFlow's profiler says: Your program is MODERATELY input-bound"),
            std::string::npos)
      << tf.verdict.summary;
  EXPECT_EQ(tf.coverage.device_activity, "analysis_pages");
  EXPECT_EQ(tf.coverage.confidence, "low");
  ASSERT_EQ(tf.tensorflow_view.size(), 1u);
  EXPECT_EQ(tf.tensorflow_view[0].device, "TPU v4");
  for (const char* f : {"text", "md", "html", "json"}) {
    std::string out = FindRenderer(f)(tf, {});
    EXPECT_NE(out.find("TPU v4"), std::string::npos) << f;
  }
  EXPECT_NE(FindRenderer("text")(tf, {}).find("analysis pages only"), std::string::npos);

  Report jax = ReportOfPage("h.overview_page.json", OverviewTables("jit(train_step)/jit(main)/dot_general"), &fw);
  EXPECT_EQ(fw, Framework::kJax);
  EXPECT_EQ(jax.coverage.framework, "jax");
}

// A page whose mean step is below its categories' sum (TF averaged in a step of zero length):
// shares are of the sum, none past 100%.
TEST(TfProfilerTables, SharesNeverPastTheWhole) {
  Report r = ReportOfPage("h.overview_page.json", OverviewTables("Conv2D", "80.0"));
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  EXPECT_DOUBLE_EQ(r.tensorflow_view[0].step_ms, 80.0);  // as TensorFlow wrote it
  double sum = 0;
  for (const auto& b : r.tensorflow_view[0].breakdown) {
    EXPECT_LE(b.pct, 100.0) << b.category;
    sum += b.pct;
  }
  EXPECT_NEAR(sum, 100.0, 1e-9);
}

// tf-profiler-demo's Cloud TPU run (SOURCES.md): ResNet-50 on a TPU v2, "NOT input-bound ... 0.0%".
TEST(TfProfilerTables, DemoCloudTpuRun) {
  SD_CORPUS_OR_SKIP(dir, "tf-profiler-demo/plugins/profile/Cloud-TPU");
  auto imp = ImportPaths({dir});
  ASSERT_TRUE(imp.ok()) << imp.message();
  EXPECT_EQ(imp->trace.framework, Framework::kTensorFlow);
  Report r = AnalyzeTrace(imp->trace);
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  const TensorFlowView& v = r.tensorflow_view[0];
  EXPECT_EQ(v.host, "10.240.1.50");
  EXPECT_EQ(v.device, "TPU v2");
  EXPECT_EQ(v.bottleneck, "device");
  EXPECT_EQ(v.steps, 3);
  EXPECT_NEAR(v.step_ms, 313.8, 0.05);
  ASSERT_TRUE(v.input_pct.has_value());
  EXPECT_LT(*v.input_pct, 0.1);
  EXPECT_NE(r.verdict.summary.find("NOT input-bound"), std::string::npos) << r.verdict.summary;
}

// xprof's golden pages for a JAX Transformer trained on TPU v5: JAX, 5 steps of 96.3 ms (TF's mean).
TEST(TfProfilerTables, XprofGoldenJaxTraining) {
  SD_CORPUS_OR_SKIP(dir, "xprof-testdata/integration_golden");
  auto imp = ImportPaths({dir});
  ASSERT_TRUE(imp.ok()) << imp.message();
  EXPECT_EQ(imp->trace.framework, Framework::kJax);
  Report r = AnalyzeTrace(imp->trace);
  ASSERT_EQ(r.tensorflow_view.size(), 1u);
  const TensorFlowView& v = r.tensorflow_view[0];
  EXPECT_EQ(v.device, "TPU v5");
  EXPECT_EQ(v.steps, 5);
  EXPECT_NEAR(v.step_ms, 96.3, 0.05);
  for (const auto& b : v.breakdown) EXPECT_LE(b.pct, 100.0) << b.category;
}

}  // namespace
}  // namespace stepdoctor
