// The what-if replay (analysis/whatif): the untransformed replay reproduces the measured steps;
// each fix moves what it should and no more, on small traces built here; fixes it cannot judge
// say why; and on the measured before/after pairs, the prediction lands within 15% of the step
// the after-run measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/io/byte_source.h"
#include "inline_chrome.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::X;

constexpr const char* kV100 =
    ",\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\",\"computeMajor\":7,\"computeMinor\":0}]";

Trace Import(const std::string& json) { return testing::ImportChrome(json); }

Prediction Predict(const Trace& t, const std::string& fix, int cores = 0) {
  auto f = ParseFix(fix);
  EXPECT_TRUE(f.ok()) << f.message();
  WhatIfOptions o;
  o.cores = cores;
  WhatIfReport r = TraceToWhatIf(t, {*f}, o);
  EXPECT_EQ(r.predictions.size(), 1u);
  return r.predictions.empty() ? Prediction{} : r.predictions[0];
}

// A CPU-only loop: each 100 ms step loads a batch in-process for `load_ms`, then computes.
std::string CpuLoop(int steps, double load_ms, double compute_ms) {
  std::string ev;
  double t = 0, step = load_ms + compute_ms;
  for (int i = 0; i < steps; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, step * 1000);
    ev += X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, t, load_ms * 1000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + load_ms * 1000, compute_ms * 1000);
    t += step * 1000;
  }
  return Doc(ev);
}

// A GPU loop: per step the host waits `load_ms` on the DataLoader, launches `kernels` kernels of
// `kernel_ms` each (one launch every `launch_ms`), then synchronises with the device.
std::string GpuLoop(int steps, double load_ms, int kernels, double launch_ms, double kernel_ms) {
  std::string ev;
  double t = 0;
  int corr = 1;
  for (int i = 0; i < steps; ++i) {
    std::string body;
    double h = t;
    body += X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, h, load_ms * 1000);
    h += load_ms * 1000;
    double dev = h;  // the device is idle at the step's start: the previous step synchronised
    for (int k = 0; k < kernels; ++k, ++corr) {
      body += X("cuda_runtime", "cudaLaunchKernel", 1, 1, h, launch_ms * 1000 - 1, Corr(corr));
      double ready = h + launch_ms * 1000 - 1;
      dev = std::max(dev, ready);
      body += X("kernel", "volta_sgemm_128x64_nn", 0, 7, dev, kernel_ms * 1000,
                "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
      dev += kernel_ms * 1000;
      h += launch_ms * 1000;
    }
    double sync_end = std::max(h, dev) + 10;
    body += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, h, sync_end - h);
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, sync_end - t) + body;
    t = sync_end;
  }
  return Doc(ev, kV100);
}

TEST(WhatIf, ParseFixAcceptsTheDocumentedFixesAndNamesTheRest) {
  EXPECT_EQ(ParseFix("input")->kind, FixKind::kInput);
  EXPECT_EQ(ParseFix("input:workers=4")->workers, 4);
  EXPECT_EQ(ParseFix("launch")->kind, FixKind::kLaunch);
  EXPECT_EQ(ParseFix("stalls")->kind, FixKind::kStalls);
  EXPECT_EQ(ParseFix("amp")->kind, FixKind::kAmp);
  EXPECT_EQ(ParseFix("overlap")->kind, FixKind::kOverlap);
  for (const char* bad : {"", "inputs", "input:workers=0", "input:workers=x", "input:threads=2", "launch:2"}) {
    auto f = ParseFix(bad);
    EXPECT_FALSE(f.ok()) << bad;
    EXPECT_NE(f.message().find("--fix"), std::string::npos) << f.message();
  }
}

TEST(WhatIf, UntransformedReplayReproducesTheMeasuredSteps) {
  Prediction cpu = Predict(Import(CpuLoop(6, 40, 60)), "input");
  EXPECT_NEAR(cpu.model_baseline_ms, cpu.baseline_step_ms, 0.01);
  Prediction gpu = Predict(Import(GpuLoop(6, 30, 20, 0.1, 2)), "input");
  EXPECT_NEAR(gpu.model_baseline_ms, gpu.baseline_step_ms, 0.01 * gpu.baseline_step_ms);
}

TEST(WhatIf, HiddenInputOnACpuLoopLeavesTheCompute) {
  Prediction p = Predict(Import(CpuLoop(6, 40, 60)), "input");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 100, 0.01);
  EXPECT_NEAR(p.predicted_step_ms, 60, 0.5);
  EXPECT_NEAR(p.speedup, 100.0 / 60, 0.02);
  EXPECT_LE(p.low_ms, p.predicted_step_ms);
  EXPECT_GE(p.high_ms, p.predicted_step_ms);
  EXPECT_FALSE(p.assumptions.empty());
}

// Loader workers share the cores with the training process: on 2 cores, 80 ms of load and 60 ms
// of compute cannot take less than (60 + 80) / 2 = 70 ms a step; 20 ms of load hides entirely.
TEST(WhatIf, WorkersAreBoundedByTheCores) {
  Prediction heavy = Predict(Import(CpuLoop(6, 80, 60)), "input:workers=2", 2);
  ASSERT_TRUE(heavy.predicted) << heavy.why_not;
  EXPECT_NEAR(heavy.predicted_step_ms, 70, 0.5);
  EXPECT_EQ(heavy.bound_by, "cpu");
  Prediction light = Predict(Import(CpuLoop(6, 20, 60)), "input:workers=2", 2);
  ASSERT_TRUE(light.predicted);
  EXPECT_NEAR(light.predicted_step_ms, 60, 0.5);
  // One worker on many cores: the loader itself (80 ms a batch) bounds the step.
  Prediction one = Predict(Import(CpuLoop(6, 80, 60)), "input:workers=1", 16);
  EXPECT_NEAR(one.predicted_step_ms, 80, 0.5);
  EXPECT_EQ(one.bound_by, "loader");
}

TEST(WhatIf, WorkersWithUnknownCoresIsNotANumber) {
  Prediction p = Predict(Import(CpuLoop(6, 80, 60)), "input:workers=2");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("--cores"), std::string::npos) << p.why_not;
}

// With the input hidden, the host launches 20 kernels of 2 ms in 2 ms: the device bounds the step
// (about 40 ms), not the host's 30 ms less.
TEST(WhatIf, HiddenInputOnAGpuLoopIsBoundByTheDevice) {
  Prediction p = Predict(Import(GpuLoop(6, 30, 20, 0.1, 2)), "input");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 30 + 40.1, 0.5);
  EXPECT_NEAR(p.predicted_step_ms, 40.1, 0.5);
  EXPECT_EQ(p.bound_by, "device");
}

// A host-bound loop: each launch takes 1 ms for a 0.2 ms kernel. Fusing launches leaves the device
// work (20 x 0.2 ms) and the input wait.
TEST(WhatIf, LaunchFixLeavesDeviceWorkAndInput) {
  Prediction p = Predict(Import(GpuLoop(6, 5, 20, 1.0, 0.2)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 5 + 20 + 0.21, 0.5);
  EXPECT_NEAR(p.predicted_step_ms, 5 + 4 + 0.03, 0.5);
  EXPECT_GT(p.high_ms, p.predicted_step_ms);  // at worst half the host work remains
}

// A device-bound loop: 20 launches of 0.1 ms for kernels of 2 ms. Removing launch overhead gains
// next to nothing, and its worst case is the step as measured, never slower.
TEST(WhatIf, LaunchFixOnADeviceBoundLoopIsNeverSlowerThanMeasured) {
  Prediction p = Predict(Import(GpuLoop(6, 0.5, 20, 0.1, 2)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_LE(p.high_ms, p.baseline_step_ms);
  EXPECT_LE(p.predicted_step_ms, p.baseline_step_ms);
  EXPECT_GE(p.speedup, 1.0);
  EXPECT_LT(p.low_ms, p.baseline_step_ms);
}

// Each step's host spends 11 ms in an operator that launches a 7 ms kernel it does not wait for;
// the last step's kernel runs past the window. With the host's work gone the device bounds the
// step: no less than the 7 ms each step launched, though the last kernel spilled past the window.
TEST(WhatIf, DeviceWorkLaunchedIsTheFloor) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    double t = i * 12000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 12000);
    ev += X("cpu_op", "aten::matmul", 1, 1, t, 11015);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 11000, 10, Corr(i + 1));
    ev += X("kernel", "matmul_k", 0, 7, t + 11020, 7000, "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":7}");
  }
  Prediction p = Predict(Import(Doc(ev, kV100)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.predicted_step_ms, 7.0, 0.1);
  EXPECT_EQ(p.bound_by, "device");
}

// Kernels on two streams, one after the other in the trace (each waited for the one before): the
// replay has no edge between the streams and would run them side by side once launches are gone.
// A fix that leaves the device's work as it is cannot beat the time the device was busy: neither
// the point nor the low end goes under it.
TEST(WhatIf, NoHostFixBeatsTheDevicesBusyTime) {
  std::string ev;
  int corr = 1;
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    std::string body;
    double h = t, dev = t;
    for (int k = 0; k < 20; ++k, ++corr) {
      body += X("cuda_runtime", "cudaLaunchKernel", 1, 1, h, 50, Corr(corr));
      dev = std::max(dev, h + 50);
      body += X("kernel", "volta_sgemm_128x64_nn", 0, k % 2 ? 8 : 7, dev, 200,
                "{\"correlation\":" + std::to_string(corr) + ",\"stream\":" + (k % 2 ? "8" : "7") + ",\"device\":0}");
      dev += 200;
      h += 100;
    }
    const double end = std::max(h, dev) + 10;
    body += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, h, end - h);
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, end - t) + body;
    t = end;
  }
  Prediction p = Predict(Import(Doc(ev, kV100)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  const double busy_ms = 20 * 0.2;
  EXPECT_GE(p.predicted_step_ms, busy_ms - 1e-9);
  EXPECT_GE(p.low_ms, busy_ms - 1e-9);
  EXPECT_EQ(p.bound_by, "device");
}

// An operator's slow first call (cuDNN autotuning, lazy loading) is one-off start-up in the
// model as in the breakdown: compiling the step does not remove it.
TEST(WhatIf, SlowFirstCallsStayUnderTheLaunchFix) {
  std::string ev;
  double t = 0;
  // Step 0 runs another operator; the convolution's first call is in step 1 (a window's first
  // step may be set apart as warm-up: the first call need not be in it).
  for (int i = 0; i < 6; ++i) {
    const double op = i == 1 ? 100000 : 1000;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, op + 300);
    ev += X("cpu_op", i == 0 ? "aten::add" : "aten::cudnn_convolution", 1, 1, t, op);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + op - 20, 10, Corr(i + 1));
    ev += X("kernel", "implicit_convolve_sgemm", 0, 7, t + op, 200, "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":7}");
    t += op + 300;
  }
  Prediction p = Predict(Import(Doc(ev, kV100)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_GE(p.predicted_step_ms, 100.0 / 6);  // the first call's 100 ms stays, over the steps
  EXPECT_LT(p.predicted_step_ms, p.baseline_step_ms);
}

// An operator computing on the CPU (no launch inside) is work compiling the step does not remove.
TEST(WhatIf, LaunchFixLeavesCpuWork) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    double t = i * 8500.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 8500);
    ev += X("cpu_op", "aten::normal_", 1, 1, t, 8000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 8000, 10, Corr(i + 1));
    ev += X("kernel", "matmul_k", 0, 7, t + 8020, 2000, "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":7}");
  }
  Prediction p = Predict(Import(Doc(ev, kV100)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.predicted_step_ms, 8.0, 0.3);
}

// Host time with nothing recorded is not launch overhead: the launch fix leaves it.
TEST(WhatIf, LaunchFixLeavesUntracedHostTime) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    double t = i * 50000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 50000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 100, 10, Corr(i + 1));
    ev += X("kernel", "k", 0, 7, t + 120, 45, "{\"correlation\":" + std::to_string(i + 1) + ",\"stream\":7}");
  }
  Prediction p = Predict(Import(Doc(ev, kV100)), "launch");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.predicted_step_ms, 50, 1.0);  // 49.9 ms of each step is untraced
  EXPECT_NE(p.assumptions.back().find("untraced"), std::string::npos);
}

// A window of a few events under a millisecond (a profiler unit test's trace): nothing to replay.
TEST(WhatIf, TinyWindowIsNotReplayed) {
  std::string ev = X("cpu_op", "aten::add", 1, 1, 0, 0.1) + X("cuda_runtime", "cudaLaunchKernel", 1, 1, 0.1, 0.05, Corr(1)) +
                   X("kernel", "k", 0, 7, 0.2, 0.02, "{\"correlation\":1,\"stream\":7}");
  Trace t = Import(Doc(ev, kV100));
  Prediction p = Predict(t, "launch");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("too little"), std::string::npos) << p.why_not;
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.verdict.summary.rfind("too little to diagnose", 0), 0u) << r.verdict.summary;
  EXPECT_EQ(r.coverage.confidence, "low");
  for (const auto& f : r.findings) EXPECT_NE(f.id, "host_bound");
}

TEST(WhatIf, LaunchFixOnACpuOnlyTraceSaysWhyNot) {
  Prediction p = Predict(Import(CpuLoop(6, 40, 60)), "launch");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("CPU-only"), std::string::npos);
}

// A step that already runs compiled: what host time is left is what compiling did not remove, so
// "compile the step" is no prediction. The same loop without graph launches is predicted.
TEST(WhatIf, LaunchFixOnACompiledStepSaysWhyNot) {
  std::string loop = GpuLoop(6, 0.01, 20, 0.5, 0.1);
  Prediction eager = Predict(Import(loop), "launch");
  EXPECT_TRUE(eager.predicted) << eager.why_not;
  const std::string graph = X("cuda_runtime", "cudaGraphLaunch", 1, 1, 5, 20, Corr(9999));
  loop.insert(loop.find(",{\"ph\":\"X\""), graph);  // X() events start with their comma
  Prediction compiled = Predict(Import(loop), "launch");
  EXPECT_FALSE(compiled.predicted);
  EXPECT_NE(compiled.why_not.find("already runs compiled"), std::string::npos) << compiled.why_not;
}

TEST(WhatIf, StallsTakeTheMedianStep) {
  std::string ev;
  double t = 0;
  for (int i = 0; i < 10; ++i) {
    double d = i == 5 ? 400 : 100;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, d * 1000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t, d * 1000);
    t += d * 1000;
  }
  Trace tr = Import(Doc(ev));
  Prediction p = Predict(tr, "stalls");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 130, 0.01);
  EXPECT_NEAR(p.predicted_step_ms, 100, 0.01);
  Prediction none = Predict(Import(CpuLoop(6, 40, 60)), "stalls");
  EXPECT_FALSE(none.predicted);
}

// Slow steps only at the window's start are warm-up, not a stall: nothing to remove. One more slow
// step later in the window is a stall again.
TEST(WhatIf, SlowFirstStepsAreWarmUpNotStalls) {
  auto loop = [](std::vector<int> slow) {
    std::string ev;
    double t = 0;
    for (int i = 0; i < 10; ++i) {
      const double d = std::find(slow.begin(), slow.end(), i) != slow.end() ? 150 : 100;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, d * 1000);
      ev += X("cpu_op", "aten::addmm", 1, 1, t, d * 1000);
      t += d * 1000;
    }
    return Doc(ev);
  };
  Prediction first = Predict(Import(loop({0})), "stalls");
  EXPECT_FALSE(first.predicted);
  EXPECT_NE(first.why_not.find("warm-up"), std::string::npos) << first.why_not;
  Prediction two = Predict(Import(loop({0, 1})), "stalls");
  EXPECT_FALSE(two.predicted);
  EXPECT_NE(two.why_not.find("the slow steps (2 of them) are the first"), std::string::npos) << two.why_not;
  Prediction later = Predict(Import(loop({0, 6})), "stalls");
  EXPECT_TRUE(later.predicted) << later.why_not;
}

// fp32 GEMMs on a V100 speed up 2-3x under 16-bit math; with the device bounding the step, so
// does the step (less the launches and sync that stay).
TEST(WhatIf, MixedPrecisionIsARange) {
  Prediction p = Predict(Import(GpuLoop(6, 0.01, 20, 0.05, 2)), "amp");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 40.1, 0.5);
  EXPECT_NEAR(p.low_ms, 40.0 / 3, 1.0);
  EXPECT_NEAR(p.high_ms, 40.0 / 2, 1.0);
  EXPECT_LT(p.low_ms, p.predicted_step_ms);
  EXPECT_LT(p.predicted_step_ms, p.high_ms);
}

// Per step: a 20 ms GEMM, a 10 ms all-reduce on its own stream after it, then a 10 ms GEMM that
// waited for the all-reduce (launched long before). Overlapped, the all-reduce runs beside the
// second GEMM: about 30 ms (a little more as compute shares the device), never less than the
// all-reduce itself; without communication kernels there is nothing to overlap.
std::string CommLoop(int steps, double allreduce_ms) {
  std::string ev;
  double t = 0;
  int corr = 1;
  for (int i = 0; i < steps; ++i) {
    const double step = (30 + allreduce_ms) * 1000 + 20;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, step);
    for (int k = 0; k < 3; ++k)
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 1 + k * 2, 1, Corr(corr + k));
    ev += X("kernel", "volta_sgemm_128x64_nn", 0, 7, t + 10, 20000, "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
    ev += X("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 9, t + 20010, allreduce_ms * 1000,
            "{\"correlation\":" + std::to_string(corr + 1) + ",\"stream\":9,\"device\":0}");
    ev += X("kernel", "volta_sgemm_128x64_nn", 0, 7, t + 20010 + allreduce_ms * 1000, 10000,
            "{\"correlation\":" + std::to_string(corr + 2) + ",\"stream\":7,\"device\":0}");
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 10, step - 15);
    corr += 3;
    t += step;
  }
  return Doc(ev, kV100);
}

TEST(WhatIf, OverlapTakesCommunicationOffThePath) {
  Prediction p = Predict(Import(CommLoop(6, 10)), "overlap");
  ASSERT_TRUE(p.predicted) << p.why_not;
  EXPECT_NEAR(p.baseline_step_ms, 40.0, 0.5);
  EXPECT_NEAR(p.low_ms, 30.0, 1.0);                  // compute at full speed
  EXPECT_NEAR(p.high_ms, 30.0 * 1.15, 1.5);          // compute slowed beside communication
  EXPECT_GT(p.predicted_step_ms, p.low_ms);
  EXPECT_LT(p.predicted_step_ms, p.high_ms);
  // A 40 ms all-reduce cannot hide under 30 ms of compute: the step is at least the all-reduce.
  Prediction big = Predict(Import(CommLoop(6, 40)), "overlap");
  ASSERT_TRUE(big.predicted) << big.why_not;
  EXPECT_NEAR(big.predicted_step_ms, 40.0, 1.0);
  EXPECT_EQ(big.bound_by, "communication");
  Prediction none = Predict(Import(GpuLoop(6, 0.01, 20, 0.05, 2)), "overlap");
  EXPECT_FALSE(none.predicted);
  EXPECT_NE(none.why_not.find("no communication kernels"), std::string::npos) << none.why_not;
}

TEST(WhatIf, MissingDeviceActivityIsNotPredicted) {
  std::string ev;
  for (int i = 0; i < 4; ++i) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, i * 1000.0, 1000);
    ev += X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 800);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, i * 1000.0 + 100, 20, Corr(i + 1));
  }
  Prediction p = Predict(Import(Doc(ev)), "input");
  EXPECT_FALSE(p.predicted);
  EXPECT_NE(p.why_not.find("not recorded"), std::string::npos) << p.why_not;
}

// Measured pairs. The corpus DataLoader pair: ResNet-50 with num_workers=0, then 4 (the after-run
// measured a 125.1 ms median step, 143 ms mean with one slow step).
TEST(WhatIf, CorpusDataLoaderPairWithin15Percent) {
  SD_CORPUS_OR_SKIP(before, "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz");
  SD_CORPUS_OR_SKIP(after, "kineto-tb-plugin-samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz");
  auto b = ImportPaths({before});
  auto a = ImportPaths({after});
  ASSERT_TRUE(b.ok() && a.ok());
  Prediction p = Predict(b->trace, "input");
  ASSERT_TRUE(p.predicted) << p.why_not;
  Prediction measured = Predict(a->trace, "stalls");  // any fix: its baseline is the measured step
  EXPECT_NEAR(p.predicted_step_ms, measured.baseline_median_ms, 0.15 * measured.baseline_median_ms);
  EXPECT_LT(p.predicted_step_ms, p.baseline_step_ms - 20);  // the upper bound's 107 ms is not the answer
  EXPECT_GT(p.predicted_step_ms, 110);
}

// The project's H200 recordings: num_workers=0, then 8 with pinned memory (examples/gpu/README.md).
TEST(WhatIf, GpuDataLoaderExamplePairWithin15Percent) {
  auto b = ImportPaths({testing::SourcePath("examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz")});
  auto a = ImportPaths({testing::SourcePath("examples/gpu/gpu_dataloader_workers8.pt.trace.json.gz")});
  ASSERT_TRUE(b.ok() && a.ok());
  Prediction p = Predict(b->trace, "input");
  ASSERT_TRUE(p.predicted) << p.why_not;
  Prediction measured = Predict(a->trace, "input");
  EXPECT_NEAR(p.predicted_step_ms, measured.baseline_step_ms, 0.15 * measured.baseline_step_ms);
  EXPECT_EQ(p.bound_by, "device");
}

// The project's CPU sweep (examples/whatif/README.md): num_workers 0 -> 2 on 2 cores, per-item load
// 0.5-4 ms. Every prediction within 15% of the after-run's mean step; at 4 ms an item the cores
// bound the step, which the upper bound (the step less its input wait) misses by over 15%.
TEST(WhatIf, CpuSweepWorkersOnTwoCoresWithin15Percent) {
  for (const char* cost : {"0.5", "1", "2", "4"}) {
    SCOPED_TRACE(cost);
    auto b = ImportPaths({testing::SourcePath(std::string("examples/whatif/cost") + cost + "_workers0.pt.trace.json.gz")});
    auto a = ImportPaths({testing::SourcePath(std::string("examples/whatif/cost") + cost + "_workers2.pt.trace.json.gz")});
    ASSERT_TRUE(b.ok() && a.ok());
    Prediction p = Predict(b->trace, "input:workers=2", 2);
    ASSERT_TRUE(p.predicted) << p.why_not;
    const double measured = Predict(a->trace, "stalls").baseline_step_ms;
    EXPECT_NEAR(p.predicted_step_ms, measured, 0.15 * measured);
    if (std::string(cost) == "4") {
      EXPECT_EQ(p.bound_by, "cpu");
      const double upper_bound = Predict(b->trace, "input").predicted_step_ms;
      EXPECT_LT(upper_bound, 0.85 * measured);
    }
  }
}

// The project's checkpoint pair (examples/whatif/README.md): a synchronous torch.save + fsync every
// 4th step, then none. Removing the stalls predicts the after-run's mean step within 15%.
TEST(WhatIf, CheckpointPairWithin15Percent) {
  auto b = ImportPaths({testing::SourcePath("examples/whatif/checkpoint_every4.pt.trace.json.gz")});
  auto a = ImportPaths({testing::SourcePath("examples/whatif/checkpoint_off.pt.trace.json.gz")});
  ASSERT_TRUE(b.ok() && a.ok());
  Prediction p = Predict(b->trace, "stalls");
  ASSERT_TRUE(p.predicted) << p.why_not;
  const double measured = Predict(a->trace, "input").baseline_step_ms;
  EXPECT_NEAR(p.predicted_step_ms, measured, 0.15 * measured);
  EXPECT_GT(p.baseline_step_ms, 1.15 * measured);  // the stalls were real
}

}  // namespace
}  // namespace stepdoctor
