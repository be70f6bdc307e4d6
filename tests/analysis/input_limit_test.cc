// diagnose --data: an input-bound step's finding says whether storage or the CPU is the limit,
// from the probed storage against what the steps read. The dataset is real (many small files in
// a temp folder, probed); the verdicts use injected storage figures, since measured ones depend
// on the machine.
#include <gtest/gtest.h>

#include <cmath>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/input_limit.h"
#include "stepdoctor/analysis/rules/input_limit_advice.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/iobench/storage_probe.h"
#include "tfrecord/temp_dir.h"

namespace stepdoctor {
namespace {

using testing::DataLoaderLoop;

constexpr double kSamplesPerStep = 32;
// 100 ms steps, 40 of them waiting on the in-process DataLoader: steps without the wait take
// 60 ms, so they read 32 / 0.060 s samples.
constexpr double kNeededSamplesPerS = kSamplesPerStep / 0.060;

Trace ImportJson(const std::string& json) {
  Trace t;
  auto src = MemorySource(json, "loop.json");
  Status st = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

// 2,000 files of 4 KB in ten class folders, probed for real (briefly, 1 and 2 readers).
const IoBenchReport& ProbedDataset() {
  static testing::TempDir* dir = [] {
    auto* d = new testing::TempDir("input_limit_data");
    for (int i = 0; i < 2000; ++i)
      d->Write("class" + std::to_string(i % 10) + "/img" + std::to_string(i) + ".bin", std::string(4096, char('a' + i % 26)));
    return d;
  }();
  static IoBenchReport probed = [] {
    IoBenchOptions o;
    o.path = dir->path();
    o.max_threads = 2;
    o.duration_s = 0.4;
    auto r = RunIoBench(o);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? *r : IoBenchReport{};
  }();
  return probed;
}

// The probed dataset with its measured rates replaced: `files_per_s` with one reader, twice it with two.
IoBenchReport WithRates(double files_per_s) {
  IoBenchReport r = ProbedDataset();
  for (auto& p : r.phases) {
    p.files_per_s = files_per_s * p.readers;
    p.mb_per_s = p.files_per_s * r.mean_small_file_bytes / 1e6;
  }
  return r;
}

const Finding* Find(const Report& r, const char* id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// A finding's named figure; NaN when it has none of that name.
double Figure(const Finding& f, const std::string& name) {
  for (const auto& [k, v] : f.figures)
    if (k == name) return v;
  return std::nan("");
}

std::string Evidence(const Finding& f, const std::string& label) {
  for (const auto& e : f.evidence)
    if (e.label == label) return e.value;
  return "";
}

Report Diagnose(const Trace& t, const IoBenchReport& storage, double samples_per_step = kSamplesPerStep) {
  AnalyzeOptions o;
  o.storage = &storage;
  o.samples_per_step = samples_per_step;
  return AnalyzeTrace(t, o);
}

TEST(InputLimit, TheProbedDatasetIsSmallFiles) {
  const IoBenchReport& r = ProbedDataset();
  EXPECT_EQ(r.files, 2000u);
  EXPECT_EQ(r.read_path, kPhaseSmallFiles);
  EXPECT_DOUBLE_EQ(r.mean_small_file_bytes, 4096);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_GT(r.phases[0].files_per_s, 0);
}

// Storage delivering just under kStorageHeadroomFactor x what the steps need: storage; just over: CPU.
TEST(RuleInputBound, StorageLimitThresholds) {
  Trace t = ImportJson(DataLoaderLoop(6, 40, 60));
  IoBenchReport slow = WithRates(kNeededSamplesPerS * (kStorageHeadroomFactor - 0.1));
  IoBenchReport fast = WithRates(kNeededSamplesPerS * (kStorageHeadroomFactor + 0.1));
  Report rs = Diagnose(t, slow), rc = Diagnose(t, fast);
  const Finding* s = Find(rs, "input_bound");
  const Finding* c = Find(rc, "input_bound");
  ASSERT_TRUE(s && c);
  EXPECT_EQ(Evidence(*s, "input limit").rfind("storage: it delivers 1.40x", 0), 0u) << Evidence(*s, "input limit");
  EXPECT_EQ(Evidence(*c, "input limit").rfind("CPU (decode, augment, collate): storage delivers 1.60x", 0), 0u)
      << Evidence(*c, "input limit");
  EXPECT_NE(s->fix.summary.find("stepdoctor tfrecord pack"), std::string::npos) << s->fix.summary;
  EXPECT_NE(s->fix.summary.find("Read in parallel: 2 readers"), std::string::npos) << s->fix.summary;
  EXPECT_NE(c->fix.summary.find("The CPU is the limit"), std::string::npos) << c->fix.summary;
  EXPECT_EQ(c->fix.tensorflow.find("tfrecord pack"), std::string::npos);
  // The figures behind it: one reader (the loader runs in the training process), the rate now and
  // without the wait, the bytes estimated from the dataset's files.
  EXPECT_EQ(Evidence(*s, "readers the job uses").rfind("1: ", 0), 0u);
  EXPECT_EQ(Evidence(*s, "the job reads"), "320 samples/s now (32 a step x 10.00 steps/s); 533 samples/s for steps without input wait");
  EXPECT_NE(Evidence(*s, "bytes per sample").find("4.1 KB (estimate: the mean file size under"), std::string::npos);
  EXPECT_EQ(Evidence(*s, "reading one step's samples"), "42.9 ms at 1 reader of the 40.0 ms the step waits on input");
  EXPECT_NE(Evidence(*s, "storage under " + slow.path + " (probed)").find("747 files/s"), std::string::npos);
  // The same figures for machines.
  EXPECT_EQ(Figure(*s, "storage_limited"), 1);
  EXPECT_EQ(Figure(*c, "storage_limited"), 0);
  EXPECT_NEAR(Figure(*s, "storage_headroom"), kStorageHeadroomFactor - 0.1, 1e-9);
  EXPECT_NEAR(Figure(*c, "storage_headroom"), kStorageHeadroomFactor + 0.1, 1e-9);
  EXPECT_NEAR(Figure(*s, "needed_samples_per_s"), kNeededSamplesPerS, 1e-6);
  EXPECT_NEAR(Figure(*s, "deliverable_samples_per_s"), kNeededSamplesPerS * (kStorageHeadroomFactor - 0.1), 1e-6);
  EXPECT_EQ(Figure(*s, "readers"), 1);
  EXPECT_NEAR(Figure(*s, "storage_ms_per_step"), 42.857, 1e-3);
}

TEST(RuleInputBound, StorageHeadroomBothSides) {
  InputLimitSignals s;
  IoBenchPhase p;
  s.phase = &p;
  s.headroom = kStorageHeadroomFactor - 0.1;
  EXPECT_EQ(rules::InputLimitOf(s), rules::InputLimit::kStorage);
  s.headroom = kStorageHeadroomFactor + 0.1;
  EXPECT_EQ(rules::InputLimitOf(s), rules::InputLimit::kCpu);
  s.headroom = 0;  // nothing to compare
  EXPECT_EQ(rules::InputLimitOf(s), rules::InputLimit::kUnknown);
}

// DataLoader workers: the job reads in parallel, so the probe's most readers are what it gets.
TEST(InputLimit, LoaderWorkersReadWithTheMostReadersProbed) {
  Trace t = ImportJson(DataLoaderLoop(6, 40, 60, /*workers=*/true));
  // 1 reader: 0.8x the need (storage), 2 readers: 1.6x (CPU).
  Report r = Diagnose(t, WithRates(kNeededSamplesPerS * 0.8));
  const Finding* f = Find(r, "input_bound");
  ASSERT_TRUE(f);
  EXPECT_EQ(Evidence(*f, "readers the job uses").rfind("2: DataLoader worker processes", 0), 0u);
  EXPECT_EQ(Evidence(*f, "input limit").rfind("CPU", 0), 0u) << Evidence(*f, "input limit");
  EXPECT_NE(f->fix.summary.find("in more parallel workers"), std::string::npos);
}

TEST(InputLimit, WithoutSamplesPerStepTheLimitIsUnknownAndSaysWhatToGive) {
  Trace t = ImportJson(DataLoaderLoop(6, 40, 60));
  Report plain = AnalyzeTrace(t);
  Report r = Diagnose(t, WithRates(1e6), 0);
  const Finding* f = Find(r, "input_bound");
  ASSERT_TRUE(f);
  EXPECT_NE(Evidence(*f, "input limit").find("--samples-per-step"), std::string::npos);
  EXPECT_EQ(f->fix.summary, Find(plain, "input_bound")->fix.summary);  // no limit, no new advice
  EXPECT_TRUE(std::isnan(Figure(*f, "storage_limited"))) << "no verdict, no figure";
  EXPECT_TRUE(std::isnan(Figure(*f, "storage_headroom")));
  EXPECT_TRUE(Find(plain, "input_bound")->figures.empty());
}

// Data already in large files: samples/s from MB/s needs the bytes a sample takes.
TEST(InputLimit, LargeFilesCompareBytesWhenASampleSizeIsGiven) {
  Trace t = ImportJson(DataLoaderLoop(6, 40, 60));
  IoBenchReport shards;
  shards.path = "shards";
  shards.files = shards.large_files = 3;
  shards.bytes = 300'000'000;
  shards.mean_file_bytes = 1e8;
  shards.read_path = kPhaseSequential;
  shards.phases.push_back({kPhaseSequential, 1, 36, 300'000'000, 1.0, 500.0, 0});
  AnalyzeOptions o;
  o.storage = &shards;
  o.samples_per_step = kSamplesPerStep;
  Report unknown = AnalyzeTrace(t, o);
  EXPECT_NE(Evidence(*Find(unknown, "input_bound"), "input limit").find("--bytes-per-sample"), std::string::npos);
  o.bytes_per_sample = 100e3;  // 500 MB/s = 5000 samples/s against 533 needed: CPU
  Report r = AnalyzeTrace(t, o);
  const Finding* f = Find(r, "input_bound");
  EXPECT_EQ(Evidence(*f, "input limit").rfind("CPU (decode, augment, collate): storage delivers 9.38x", 0), 0u)
      << Evidence(*f, "input limit");
  EXPECT_EQ(Evidence(*f, "bytes per sample"), "100.0 KB (given)");
}

// tf.data: the same verdict on the stage finding, with the reading stages' share of the blocking time.
TEST(TfdataBottleneckStageRules, StorageOrCpuLimit) {
  TfSignals tf;
  tf.tfdata.present = true;
  tf.tfdata.stages.push_back({"Iterator::Model::Map", "Map", TfDataStageKind::kParallelizable, 30, 75, 4, 7.5});
  tf.tfdata.stages.push_back({"Iterator::Model::Map::TFRecord", "TFRecord", TfDataStageKind::kSource, 10, 25, 4, 2.5});
  tf.tfdata.bottleneck = 0;
  tf.step_ms = 100;
  tf.input_share_pct = tf.input_exposed_pct = 40;
  StepSignals steps;
  steps.step_count = 4;
  steps.mean_step_ms = 100;
  steps.input_wait_ms = steps.category_ms[int(StepCategory::kInput)] = 40;
  IoBenchReport storage = WithRates(kNeededSamplesPerS * (kStorageHeadroomFactor - 0.1));
  InputLimitSignals limit = ComputeInputLimit(StepsToInputDemand(&steps, nullptr, kSamplesPerStep), storage, nullptr,
                                              &tf, nullptr, {});
  Signals sig;
  sig.tf = &tf;
  sig.input_limit = &limit;
  auto f = rules::TfDataBottleneckStage(sig);
  ASSERT_TRUE(f);
  EXPECT_EQ(Evidence(*f, "input limit").rfind("storage", 0), 0u);
  EXPECT_EQ(Evidence(*f, "tf.data reading stages").rfind("25.0% of the pipeline's blocking self time", 0), 0u);
  EXPECT_NE(f->fix.tensorflow.find("TFRecordDataset"), std::string::npos);
  storage = WithRates(kNeededSamplesPerS * (kStorageHeadroomFactor + 0.1));
  limit = ComputeInputLimit(limit.demand, storage, nullptr, &tf, nullptr, {});
  f = rules::TfDataBottleneckStage(sig);
  EXPECT_EQ(Evidence(*f, "input limit").rfind("CPU", 0), 0u);
}

TEST(InputLimit, TraceToInputDemandNeedsSamplesPerStepWithSteps) {
  Trace t = ImportJson(DataLoaderLoop(6, 40, 60));
  EXPECT_FALSE(TraceToInputDemand(t, 0).ok());
  auto d = TraceToInputDemand(t, kSamplesPerStep);
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_NEAR(d->needed_samples_per_s, kNeededSamplesPerS, 1e-6);
  EXPECT_NEAR(d->consumed_samples_per_s, 320, 1e-6);
}

}  // namespace
}  // namespace stepdoctor
