// The TensorFlow rules, each on both sides of its thresholds: traces built with the test XPlane
// writer where the signal comes from events, TfSignals set directly where it is a plain number.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_event_stalls.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/importers/xplane/xspace_to_trace.h"
#include "xplane/xplane_builder.h"

namespace stepdoctor {
namespace {

using testing::XPlaneBuilder;
using testing::XSpaceBuilder;

constexpr int64_t kMs = 1'000'000;
constexpr int kSteps = 4;
constexpr int64_t kStepNs = 10 * kMs;

Trace Import(const XSpaceBuilder& b) {
  Trace t;
  std::string bytes = b.Serialize();
  auto src = MemorySource(bytes, "worker.xplane.pb");
  Status st = ImportXSpace(*src, t);
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

// A GPU plane with kSteps steps of 10 ms on its Steps line and one kernel per step.
XPlaneBuilder& GpuWithSteps(XSpaceBuilder& b, int64_t memory_bytes = 16 * 1000 * kMs) {
  auto& gpu = b.AddPlane("/device:GPU:0");
  gpu.Stat("compute_cap_major", int64_t(8)).Stat("memory_size", memory_bytes);
  auto steps = gpu.AddLine(-3, "Steps");
  for (int i = 0; i < kSteps; ++i) steps.Event(std::to_string(i), i * kStepNs, kStepNs);
  return gpu;
}

std::optional<Finding> RunRule(const Trace& t, std::optional<Finding> (*rule)(const Signals&),
                           std::unique_ptr<TfSignals>* keep = nullptr) {
  auto tf = ComputeTfSignals(t, nullptr);
  EXPECT_NE(tf, nullptr);
  Signals sig;
  sig.trace = &t;
  sig.tf = tf.get();
  auto f = rule(sig);
  if (keep) *keep = std::move(tf);
  return f;
}

// tf.data: the consumer waits `wait_ms` per step in IteratorGetNext; a Map stage on a
// background thread does the work, reading from TFRecord.
Trace TfDataTrace(double wait_ms) {
  XSpaceBuilder b;
  GpuWithSteps(b);
  auto& host = b.AddPlane("/host:CPU");
  auto consumer = host.AddLine(1, "tf_Compute/1");
  auto worker = host.AddLine(2, "tf_data_private_threadpool/2");
  int64_t w = static_cast<int64_t>(wait_ms * kMs);
  for (int i = 0; i < kSteps; ++i) {
    int64_t t0 = i * kStepNs;
    consumer.Event("IteratorGetNext:IteratorGetNext", t0, w);
    consumer.Event("Iterator::Model", t0 + 10'000, w - 20'000);
    consumer.Event("Iterator::Model::Prefetch", t0 + 20'000, w - 40'000);
    worker.Event("Iterator::Model::Prefetch::Map", t0 + 30'000, w - 100'000);
    worker.Event("Iterator::Model::Prefetch::Map::TFRecord", t0 + 40'000, (w - 100'000) / 10);
  }
  return Import(b);
}

TEST(TfRules, TfdataBottleneckStageInParallelizableMap) {
  Trace t = TfDataTrace(4.0);  // 40% of a 10 ms step waits on input
  std::unique_ptr<TfSignals> tf;
  auto f = RunRule(t, &rules::TfDataBottleneckStage, &tf);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "tfdata_bottleneck_stage");
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  EXPECT_NEAR(f->share_pct, 40.0, 0.1);
  const TfDataPipeline& p = tf->tfdata;
  EXPECT_EQ(p.root, "Iterator::Model");
  EXPECT_EQ(p.slow_calls, 4);
  ASSERT_GE(p.bottleneck, 0);
  EXPECT_EQ(p.stages[p.bottleneck].iterator, "Iterator::Model::Prefetch::Map");
  EXPECT_EQ(p.stages[p.bottleneck].kind, TfDataStageKind::kParallelizable);
  EXPECT_GT(p.stages[p.bottleneck].share_pct, 80.0);
  EXPECT_EQ(p.elements_per_step, 1.0);
  EXPECT_GE(p.parallelism_needed, 1);
  EXPECT_EQ(f->evidence[0].value, "Iterator::Model::Prefetch::Map");
  EXPECT_NE(f->fix.tensorflow.find("num_parallel_calls=tf.data.AUTOTUNE"), std::string::npos);
  EXPECT_FALSE(f->fix.pytorch.empty());
  EXPECT_GT(f->gain_upper_bound, 1.4);
  EXPECT_LT(f->gain_upper_bound, 1.67);  // never more than removing the whole wait

  // Of a 10 ms step, a share in percent is a tenth of it in ms.
  EXPECT_FALSE(RunRule(TfDataTrace((kTfDataInputMinPct - 0.1) / 10), &rules::TfDataBottleneckStage).has_value());
  auto m = RunRule(TfDataTrace((kTfDataInputMinPct + 0.1) / 10), &rules::TfDataBottleneckStage);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->severity, FindingSeverity::kModerate);
}

TEST(TfRules, TfDataStageKinds) {
  EXPECT_EQ(ClassifyTfDataOp("ParallelMapV2"), TfDataStageKind::kParallel);
  EXPECT_EQ(ClassifyTfDataOp("Map"), TfDataStageKind::kParallelizable);
  EXPECT_EQ(ClassifyTfDataOp("FlatMap"), TfDataStageKind::kParallelizable);
  EXPECT_EQ(ClassifyTfDataOp("ParallelInterleaveV4"), TfDataStageKind::kParallel);
  EXPECT_EQ(ClassifyTfDataOp("TFRecord"), TfDataStageKind::kSource);
  EXPECT_EQ(ClassifyTfDataOp("Generator"), TfDataStageKind::kSource);
  EXPECT_EQ(ClassifyTfDataOp("Filter"), TfDataStageKind::kSequential);
  EXPECT_EQ(ClassifyTfDataOp("BatchV2"), TfDataStageKind::kSequential);
  EXPECT_EQ(ClassifyTfDataOp("Prefetch"), TfDataStageKind::kPrefetch);
  EXPECT_EQ(TfDataOpOf("Iterator::Model::ParallelMapV2::Zip[0]::FlatMap[0]::TFRecord"), "TFRecord");
  EXPECT_EQ(TfDataOpOf("Iterator::Model::ParallelMapV2::Zip[1]"), "Zip");
}

Trace MemoryTrace(double peak_fraction) {
  XSpaceBuilder b;
  const int64_t cap = int64_t(16) << 30;
  GpuWithSteps(b, cap);
  auto th = b.AddPlane("/host:CPU").AddLine(1, "tf_Compute/1");
  for (int i = 0; i < 10; ++i)
    th.Event("MemoryAllocation", i * kMs, 0,
             {{"allocator_name", std::string("GPU_0_bfc")},
              {"bytes_allocated", int64_t(cap * peak_fraction * (i + 1) / 10)},
              {"peak_bytes_in_use", int64_t(cap * peak_fraction * (i + 1) / 10)},
              {"fragmentation", 0.125}});
  return Import(b);
}

TEST(TfRules, MemoryPressureNearCapacity) {
  auto f = RunRule(MemoryTrace((kMemoryNearFullPct + 0.1) / 100), &rules::MemoryPressure);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "memory_pressure");
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_EQ(f->gain_upper_bound, 1.0);
  EXPECT_NE(f->fix.tensorflow.find("set_memory_growth"), std::string::npos);
  EXPECT_EQ(RunRule(MemoryTrace((kMemoryNearlyExhaustedPct - 0.1) / 100), &rules::MemoryPressure)->severity,
            FindingSeverity::kModerate);
  EXPECT_EQ(RunRule(MemoryTrace((kMemoryNearlyExhaustedPct + 0.1) / 100), &rules::MemoryPressure)->severity,
            FindingSeverity::kHigh);
  EXPECT_FALSE(RunRule(MemoryTrace((kMemoryNearFullPct - 0.1) / 100), &rules::MemoryPressure).has_value());
}

Trace RetraceTrace(int traces) {
  XSpaceBuilder b;
  GpuWithSteps(b);
  auto th = b.AddPlane("/host:CPU").AddLine(1, "python3");
  for (int i = 0; i < 8; ++i)
    th.Event("__inference_train_step_77", i * 5 * kMs, (i < traces ? 4 : 1) * kMs,
             {{"tf_function_call", std::string(i < traces ? "traced-nonXla" : "notTraced-nonXla")}});
  return Import(b);
}

TEST(TfRules, RetracingOnBothSides) {
  std::unique_ptr<TfSignals> tf;
  auto f = RunRule(RetraceTrace(kRetraceMinTraces), &rules::Retracing, &tf);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "retracing");
  EXPECT_NE(f->title.find("__inference_train_step_77"), std::string::npos);
  ASSERT_EQ(tf->retraced.size(), 1u);
  EXPECT_EQ(tf->retraced[0].traces, 3);
  EXPECT_EQ(tf->retraced[0].calls, 8);
  EXPECT_NE(f->fix.tensorflow.find("input_signature"), std::string::npos);
  EXPECT_FALSE(RunRule(RetraceTrace(kRetraceMinTraces - 1), &rules::Retracing).has_value());
}

Trace EagerTrace(double eager_ms_per_step) {
  XSpaceBuilder b;
  GpuWithSteps(b);
  auto th = b.AddPlane("/host:CPU").AddLine(1, "python3");
  for (int i = 0; i < kSteps; ++i)
    for (int k = 0; k < 4; ++k)
      th.Event("MatMul:MatMul", i * kStepNs + k * 2 * kMs, static_cast<int64_t>(eager_ms_per_step / 4 * kMs),
               {{"is_eager", int64_t(1)}});
  return Import(b);
}

TEST(TfRules, EagerOverheadOnBothSides) {
  auto f = RunRule(EagerTrace((kEagerMinSharePct + 0.1) / 10), &rules::EagerOverhead);  // of a 10 ms step
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_NE(f->fix.tensorflow.find("jit_compile=True"), std::string::npos);
  EXPECT_NE(f->fix.pytorch.find("torch.compile"), std::string::npos);
  EXPECT_FALSE(RunRule(EagerTrace((kEagerMinSharePct - 0.1) / 10), &rules::EagerOverhead).has_value());
}

Trace PrecisionTrace(double fp32_ms, double fp16_ms) {
  XSpaceBuilder b;
  auto& gpu = GpuWithSteps(b);
  auto s = gpu.AddLine(1, "Stream #1(Compute)");
  for (int i = 0; i < kSteps; ++i) {
    s.Event("volta_sgemm_128x64_nn", i * kStepNs, static_cast<int64_t>(fp32_ms * kMs));
    s.Event("volta_h884gemm_256x128_ldg8_nn", i * kStepNs + 5 * kMs, static_cast<int64_t>(fp16_ms * kMs));
  }
  return Import(b);
}

TEST(TfRules, LowPrecisionOnBothSides) {
  std::unique_ptr<TfSignals> tf;
  auto f = RunRule(PrecisionTrace(4.0, 0.5), &rules::LowPrecision, &tf);  // 11% of kernel time 16-bit
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(tf->kernel_16bit_ms_per_step, 0.5, 1e-9);
  EXPECT_NEAR(f->share_pct, 40.0, 1e-6);
  EXPECT_NE(f->fix.tensorflow.find("mixed_float16"), std::string::npos);
  EXPECT_NE(f->fix.pytorch.find("autocast"), std::string::npos);
  // 4 ms of kernels: 16-bit just under and just over kLowPrecisionMax16BitPct of them.
  const double under = 4 * (kLowPrecisionMax16BitPct - 0.1) / 100, over = 4 * (kLowPrecisionMax16BitPct + 0.1) / 100;
  EXPECT_TRUE(RunRule(PrecisionTrace(4 - under, under), &rules::LowPrecision).has_value());
  EXPECT_FALSE(RunRule(PrecisionTrace(4 - over, over), &rules::LowPrecision).has_value());
  // Kernels just under kLowPrecisionMinKernelSharePct of the 10 ms step: precision does not matter.
  const double kernels = (kLowPrecisionMinKernelSharePct - 0.1) / 10;
  EXPECT_FALSE(RunRule(PrecisionTrace(kernels, 0), &rules::LowPrecision).has_value());
  EXPECT_TRUE(RunRule(PrecisionTrace(kernels + 0.02, 0), &rules::LowPrecision).has_value());
  EXPECT_TRUE(Is16BitKernelName("Cijk_Ailk_Bljk_BBS_BH_MT256x128x64"));  // AMD bf16 GEMM
  EXPECT_TRUE(Is16BitKernelName("ampere_bf16_s16816gemm_bf16_128x128"));
  EXPECT_FALSE(Is16BitKernelName("volta_sgemm_128x64_nn"));
}

Trace CollectiveTrace(double exposed_ms) {
  XSpaceBuilder b;
  auto& gpu = GpuWithSteps(b);
  auto s = gpu.AddLine(1, "Stream #1(Compute)");
  auto c = gpu.AddLine(2, "Stream #2(Nccl)");
  for (int i = 0; i < kSteps; ++i) {
    s.Event("volta_h884gemm", i * kStepNs, 5 * kMs);
    // 1 ms hidden under the gemm, the rest exposed.
    c.Event("ncclKernel_AllReduce_RING_LL_Sum_half", i * kStepNs + 4 * kMs, static_cast<int64_t>((1 + exposed_ms) * kMs));
  }
  return Import(b);
}

TEST(TfRules, CollectiveBoundOnBothSides) {
  std::unique_ptr<TfSignals> tf;
  auto f = RunRule(CollectiveTrace(2.0), &rules::CollectiveBound, &tf);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(tf->collective_ms_per_step, 3.0, 1e-9);
  EXPECT_NEAR(tf->collective_exposed_ms_per_step, 2.0, 1e-9);
  EXPECT_NEAR(f->share_pct, 20.0, 1e-6);
  EXPECT_NE(f->fix.tensorflow.find("MultiWorkerMirroredStrategy"), std::string::npos);
  EXPECT_FALSE(RunRule(CollectiveTrace((kCollectiveMinSharePct - 0.1) / 10), &rules::CollectiveBound).has_value());
  EXPECT_TRUE(RunRule(CollectiveTrace((kCollectiveMinSharePct + 0.1) / 10), &rules::CollectiveBound).has_value());
}

TEST(TfRules, KernelLaunchBoundOnBothSides) {
  TfSignals tf;
  tf.step_ms = 10;
  tf.tfdata.present = true;
  Signals sig;
  sig.tf = &tf;
  tf.launch_share_pct = kLaunchBoundMinPct - 0.1;
  EXPECT_FALSE(rules::KernelLaunchBound(sig).has_value());
  tf.launch_share_pct = kLaunchBoundMinPct + 0.1;
  auto f = rules::KernelLaunchBound(sig);
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->fix.tensorflow.find("TF_GPU_THREAD_MODE=gpu_private"), std::string::npos);
  tf.gpu_private_threads = true;  // already on: not advised again
  EXPECT_EQ(rules::KernelLaunchBound(sig)->fix.tensorflow.find("gpu_private"), std::string::npos);
}

std::vector<ScalarSeries> Logged(double stall_s) {
  ScalarSeries s;
  s.run = "train";
  s.tag = "loss";
  double wall = 1000;
  for (int step = 0; step <= 60; ++step) {
    if (step > 0) wall += 0.5 + ((step % 10 == 0) ? stall_s : 0);  // 0.5 s per step, a stall every 10
    s.step.push_back(step);
    s.wall_time_s.push_back(wall);
    s.value.push_back(1.0 / (step + 1));
  }
  return {s};
}

TEST(TfRules, PeriodicStallThresholds) {
  EventStallRun run;
  run.run = "train";
  run.period_steps = 10;
  run.wall_s = 100;
  run.stalls = {{10, 3, 2}, {20, 3, 2}, {30, 3, 2}};
  TfSignals tf;
  Signals sig;
  sig.tf = &tf;
  auto with_share = [&](double pct) {
    run.stall_share_pct = pct;
    tf.stalls = {run};
    return rules::PeriodicStall(sig);
  };
  EXPECT_FALSE(with_share(kPeriodicStallMinSharePct - 0.1).has_value());
  EXPECT_EQ(with_share(kPeriodicStallMinSharePct + 0.1)->severity, FindingSeverity::kModerate);
  EXPECT_EQ(with_share(kPeriodicStallHighSharePct - 0.1)->severity, FindingSeverity::kModerate);
  EXPECT_EQ(with_share(kPeriodicStallHighSharePct + 0.1)->severity, FindingSeverity::kHigh);
  run.period_steps = 0;  // stalls that do not recur are not periodic
  EXPECT_FALSE(with_share(kPeriodicStallHighSharePct + 0.1).has_value());
}

TEST(TfRules, PeriodicStallFromEventFiles) {
  auto runs = ScalarsToEventStalls(Logged(5.0));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].period_steps, 10);
  EXPECT_EQ(runs[0].stalls.size(), 6u);
  EXPECT_NEAR(runs[0].seconds_per_step, 0.5, 1e-9);
  TfSignals tf;
  tf.stalls = runs;
  Signals sig;
  sig.tf = &tf;
  auto f = rules::PeriodicStall(sig);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);  // 30 s of 60 s
  EXPECT_NE(f->fix.tensorflow.find("BackupAndRestore"), std::string::npos);
  // A 1.2 s gap every 10 steps: stalls, but 7.2 s of 37 s... still periodic; 0.8 s gaps are not stalls.
  tf.stalls = ScalarsToEventStalls(Logged(0.8));
  EXPECT_FALSE(rules::PeriodicStall(sig).has_value());
  tf.stalls = ScalarsToEventStalls(Logged(1.2));
  EXPECT_TRUE(rules::PeriodicStall(sig).has_value());
}

}  // namespace
}  // namespace stepdoctor
