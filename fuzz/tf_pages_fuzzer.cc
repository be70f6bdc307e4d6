// libFuzzer target: any bytes as one of the TensorFlow profiler's analysis pages (the first byte
// picks which: overview_page.pb, input_pipeline.pb, tensorflow_stats.pb, or the JSON tables of
// the first two), then, where the page reads, through the analysis and every renderer, and the
// JSON report must read back to the same JSON. A difference aborts, so libFuzzer keeps the
// input. See chrome_json_fuzzer.cc for how to build and run (seeds: fuzz/seeds/tf_pages,
// written by fuzz/seeds/tf_pages/make_seeds.py).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"
#include "stepdoctor/importers/tfprofile/profile_tables_to_trace.h"
#include "stepdoctor/render/json_read.h"
#include "stepdoctor/render/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stepdoctor;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  Result<TfProfilerVerdict> v(ErrorCode::kUnknownFormat, "");
  switch (data[0] % 5) {
    case 0: v = ParseTfProfilerPage(bytes, TfProfilerPageKind::kOverviewPage, "h.overview_page.pb"); break;
    case 1: v = ParseTfProfilerPage(bytes, TfProfilerPageKind::kInputPipeline, "h.input_pipeline.pb"); break;
    case 2: v = ParseTfProfilerPage(bytes, TfProfilerPageKind::kTfStats, "h.tensorflow_stats.pb"); break;
    case 3: v = ParseTfProfilerTables(bytes, TfProfilerPageKind::kOverviewPage, "h.overview_page.json"); break;
    default: v = ParseTfProfilerTables(bytes, TfProfilerPageKind::kInputPipeline, "h.input_pipeline.json"); break;
  }
  if (!v.ok()) return 0;
  Trace t;
  t.tf_verdicts.push_back(std::move(*v));
  const Report r = AnalyzeTrace(t);
  for (const char* f : {"text", "md", "html"}) (void)FindRenderer(f)(r, {});
  const std::string json = RenderJson(r, {});
  auto back = ReportFromJson(json);
  if (!back.ok() || RenderJson(*back, {}) != json) std::abort();
  return 0;
}
