// memory_pressure for PyTorch: the caching allocator's peaks (Kineto [memory] events with
// Total Allocated / Total Reserved) against the GPU's memory from deviceProperties.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_memory_peaks.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// A 10 GB GPU whose allocator reserves up to `reserved_gb`.
Trace WithPeak(double reserved_gb, const std::string& extra = "") {
  std::string json = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "G", "totalGlobalMem": 10000000000}],
    "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 100, "args": {"device": 0}},)" + extra;
  for (int i = 0; i < 3; ++i) {
    double r = reserved_gb * 1e9 * (i == 1 ? 1.0 : 0.5);
    json += R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": )" + std::to_string(10 * i) +
            R"(, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1, "Total Allocated": )" +
            std::to_string(int64_t(r * 0.9)) + R"(, "Total Reserved": )" + std::to_string(int64_t(r)) + "}}" +
            (i < 2 ? "," : "");
  }
  json += "]}";
  Trace t;
  auto src = MemorySource(json, "mem.json");
  EXPECT_TRUE(ImportChromeJson(*src, t).ok());
  return t;
}

const Finding* Find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(MemoryPeaks, FromKinetoCounters) {
  Trace t = WithPeak(9.6);
  auto peaks = TraceToMemoryPeaks(t);
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_EQ(peaks[0].capacity_bytes, 10000000000);
  EXPECT_EQ(peaks[0].peak_reserved_bytes, 9600000000);
  EXPECT_NEAR(peaks[0].peak_pct(), 96.0, 1e-9);
}

TEST(MemoryPeaks, PressureThresholds) {
  EXPECT_EQ(Find(AnalyzeTrace(WithPeak(8.9)), "memory_pressure"), nullptr);  // 89%
  Report m = AnalyzeTrace(WithPeak(9.1));                                      // 91%
  ASSERT_NE(Find(m, "memory_pressure"), nullptr);
  EXPECT_EQ(Find(m, "memory_pressure")->severity, FindingSeverity::kModerate);
  EXPECT_FALSE(Find(m, "memory_pressure")->fix.pytorch.empty());
  Report h = AnalyzeTrace(WithPeak(9.8));                                      // 98%
  ASSERT_NE(Find(h, "memory_pressure"), nullptr);
  EXPECT_EQ(Find(h, "memory_pressure")->severity, FindingSeverity::kHigh);
}

TEST(MemoryPeaks, CorpusTraceWithProfileMemory) {
  SD_CORPUS_OR_SKIP(path, "hta-testdata/df_index_resolver/df_index_resolver.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  auto peaks = TraceToMemoryPeaks(r->trace);
  ASSERT_EQ(peaks.size(), 1u);  // GPU 1, a V100 32GB: 12.8 GB reserved at most
  EXPECT_NEAR(peaks[0].peak_reserved_bytes / 1e9, 12.78, 0.01);
  EXPECT_NEAR(peaks[0].peak_pct(), 37.5, 0.1);
  EXPECT_EQ(Find(AnalyzeTrace(r->trace), "memory_pressure"), nullptr);
}

// A window of forward passes alone (aten ops, no backward) keeps no activations for a backward:
// no gradient accumulation, but inference without autograd state and in chunks. A training window
// keeps the accumulation advice. Neither speaks of TensorFlow's memory growth in a PyTorch trace.
TEST(MemoryPeaks, ForwardOnlyWindowGetsInferenceAdviceBothSides) {
  const std::string forward =
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 50, "dur": 20},)";
  const std::string training =
      forward + R"({"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: BmmBackward0", "pid": 1,
      "tid": 1, "ts": 80, "dur": 20},)";
  const Finding* f = nullptr;
  Report inference = AnalyzeTrace(WithPeak(9.6, forward));
  ASSERT_NE(f = Find(inference, "memory_pressure"), nullptr);
  EXPECT_EQ(f->fix.pytorch.find("accum_steps"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.pytorch.find("inference_mode"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.summary.find("TensorFlow"), std::string::npos) << f->fix.summary;
  Report train = AnalyzeTrace(WithPeak(9.6, training));
  ASSERT_NE(f = Find(train, "memory_pressure"), nullptr);
  EXPECT_NE(f->fix.pytorch.find("accum_steps"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.summary.find("TensorFlow"), std::string::npos) << f->fix.summary;
}

// Memory advice under GradScaler (fp16 mixed precision in use): no autocast again, accumulation
// and recomputation instead; without it, mixed precision is the first advice.
TEST(MemoryPeaks, PressureUnderGradScalerAdvisesNoAutocast) {
  const std::string scaler =
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::_amp_foreach_non_finite_check_and_unscale_", "pid": 1, "tid": 1,
      "ts": 50, "dur": 20},)";
  Report amp = AnalyzeTrace(WithPeak(9.6, scaler)), plain = AnalyzeTrace(WithPeak(9.6));
  const Finding* a = Find(amp, "memory_pressure");
  const Finding* p = Find(plain, "memory_pressure");
  ASSERT_TRUE(a && p);
  EXPECT_EQ(a->fix.pytorch.find("torch.autocast("), std::string::npos) << a->fix.pytorch;
  EXPECT_NE(a->fix.pytorch.find("accum_steps"), std::string::npos) << a->fix.pytorch;
  EXPECT_NE(p->fix.pytorch.find("torch.autocast("), std::string::npos) << p->fix.pytorch;
  bool listed = false;
  for (const auto& l : amp.coverage.applied) listed |= l == "mixed precision (GradScaler)";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace stepdoctor
