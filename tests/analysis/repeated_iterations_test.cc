// Steps inferred from a repeated sequence where a trace has no step markers and no named anchor:
// a loop that makes or copies in its input, then computes, the same way each time round. Not
// from a forward pass's repeated layers (no input between them), nor from a model's parameters
// copied to the device one by one (no compute, lengths that differ).
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/repeated_iterations.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Corr;
using testing::Doc;
using testing::StreamKernel;
using testing::X;

// `iters` CPU iterations 5 ms apart: x = torch.rand(...); y = x.square(); y.to(torch.float16),
// the first one `first_factor` times longer.
std::string CpuLoop(int iters, const char* make = "aten::rand", double first_factor = 1) {
  std::string ev;
  double t = 1'000;
  for (int i = 0; i < iters; ++i) {
    const double scale = i == 0 ? first_factor : 1;
    ev += X("cpu_op", make, 1, 1, t, 300 * scale);
    ev += X("cpu_op", "aten::square", 1, 1, t + 400 * scale, 2'500 * scale);
    ev += X("cpu_op", "aten::to", 1, 1, t + 3'000 * scale, 500 * scale);
    t += 5'000 * scale;
  }
  return Doc(ev);
}

TEST(RepeatedIterations, LoopThatMakesItsInputIsIterations) {
  Trace trace = testing::ImportChrome(CpuLoop(10));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.steps.size(), 9u) << w.source;  // the last repeat's end is not in the trace
  EXPECT_TRUE(w.inferred);
  EXPECT_FALSE(w.whole_window);
  EXPECT_EQ(w.excluded_partial, 1);
  for (const StepWindow& s : w.steps) EXPECT_EQ(s.dur_ns(), 5'000'000);
  EXPECT_NE(w.source.find("3 outermost operators"), std::string::npos) << w.source;
  EXPECT_NE(w.source.find("aten::rand"), std::string::npos) << w.source;
  EXPECT_NE(w.source.find("10 times"), std::string::npos) << w.source;
  // Inferred steps lower confidence from high to medium, and the report says where they came from.
  Report r = AnalyzeTrace(trace);
  EXPECT_EQ(r.coverage.steps, "inferred");
  EXPECT_EQ(r.coverage.confidence, "medium");
}

// A slow first pass is kept out as warm-up, as with markers.
TEST(RepeatedIterations, SlowFirstRepeatIsWarmup) {
  Trace trace = testing::ImportChrome(CpuLoop(8, "aten::rand", 6));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.warmup.size(), 1u) << w.source;
  EXPECT_EQ(w.warmup[0].dur_ns(), 30'000'000);
  EXPECT_EQ(w.steps.size(), 6u);
}

// The same sequence, not starting with input: the repeated layers of one forward pass.
TEST(RepeatedIterations, RepeatedLayersAreNoIterations) {
  Trace trace = testing::ImportChrome(CpuLoop(10, "aten::linear"));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  EXPECT_TRUE(w.whole_window) << w.source;
  EXPECT_EQ(w.steps.size(), 1u);
}

// Two repeats are a pair, not a loop.
TEST(RepeatedIterations, TwoRepeatsAreNoLoop) {
  Trace trace = testing::ImportChrome(CpuLoop(2));
  EXPECT_TRUE(TraceToSteps(trace, PrimaryWorker(trace)).whole_window);
}

// model.to("cuda"): each parameter's aten::to launches a host-to-device copy, then two checks
// that do no math. It repeats, starts with a copy in, but computes nothing and its lengths follow
// the parameters' sizes: no iterations. The same `aten::to` followed by a kernel launch that runs
// each time round is a loop.
std::string ParamCopies(bool compute) {
  std::string ev;
  double t = 1'000;
  const double sizes[] = {40, 9'000, 45, 700, 40, 900, 40, 650, 40, 37'000, 50, 18'000};
  int corr = 1;
  for (double size : sizes) {
    const double len = compute ? 1'000 : size;
    ev += X("cpu_op", "aten::to", 1, 1, t, len);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 1, len - 2, Corr(corr));
    ev += StreamKernel("Memcpy HtoD (Pageable -> Device)", t + 2, len - 4, corr, "gpu_memcpy");
    ++corr;
    if (compute) {
      ev += X("cpu_op", "aten::mm", 1, 1, t + len + 10, 900);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + len + 20, 10, Corr(corr));
      ev += StreamKernel("gemm_kernel", t + len + 40, 2'000, corr);
      ++corr;
    } else {
      ev += X("cpu_op", "aten::_has_compatible_shallow_copy_type", 1, 1, t + len + 10, 1);
      ev += X("cpu_op", "aten::_has_compatible_shallow_copy_type", 1, 1, t + len + 12, 1);
    }
    t += len + 3'000;
  }
  return Doc(ev);
}

TEST(RepeatedIterations, ParameterCopiesAreNoIterations) {
  Trace copies = testing::ImportChrome(ParamCopies(false));
  EXPECT_TRUE(TraceToSteps(copies, PrimaryWorker(copies)).whole_window);
  Trace loop = testing::ImportChrome(ParamCopies(true));
  StepWindows w = TraceToSteps(loop, PrimaryWorker(loop));
  EXPECT_TRUE(w.inferred) << w.source;
  EXPECT_EQ(w.steps.size(), 11u);
  EXPECT_NE(w.source.find("aten::to"), std::string::npos) << w.source;
}

// A loop whose host makes its data for a second and computes on it in a millisecond (GPU MODE's
// lecture 1: torch.randn on the CPU, .cuda(), a square on the device): the operators besides
// input hold under a tenth of the time, but each repeat launches a kernel that runs, so it is a
// loop. The same with no kernel run (the square on the CPU took no time) is no loop.
std::string HostMadeData(bool kernel) {
  std::string ev;
  double t = 1'000;
  int corr = 1;
  for (int i = 0; i < 6; ++i) {
    ev += X("cpu_op", "aten::randn", 1, 1, t, 1'000'000);
    ev += X("cpu_op", "aten::to", 1, 1, t + 1'000'010, 60'000);
    ev += X("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 1'000'020, 59'000, Corr(corr));
    ev += StreamKernel("Memcpy HtoD (Pageable -> Device)", t + 1'000'030, 58'000, corr, "gpu_memcpy");
    ++corr;
    ev += X("cpu_op", "aten::square", 1, 1, t + 1'060'020, 200);
    if (kernel) {
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 1'060'030, 20, Corr(corr));
      ev += StreamKernel("square_kernel", t + 1'060'060, 3'000, corr);
    }
    ++corr;
    t += 1'065'000;
  }
  return Doc(ev);
}

TEST(RepeatedIterations, HostMadeDataWithAKernelEachTimeIsALoop) {
  Trace loop = testing::ImportChrome(HostMadeData(true));
  StepWindows w = TraceToSteps(loop, PrimaryWorker(loop));
  EXPECT_TRUE(w.inferred) << w.source;
  EXPECT_EQ(w.steps.size(), 5u);
  Trace none = testing::ImportChrome(HostMadeData(false));
  EXPECT_TRUE(TraceToSteps(none, PrimaryWorker(none)).whole_window);
}

// A trace of device activity alone (a tracer of the device, no host events): each iteration
// copies in, runs a kernel, copies out, 248 ms apart. Copies in and out with no kernel are no loop.
std::string DeviceOnly(int iters, bool kernel) {
  std::string ev;
  for (int i = 0; i < iters; ++i) {
    const double t = 1'000 + 248'000.0 * i;
    ev += StreamKernel("Memcpy HtoD (Pageable -> Device)", t, 2'000, 3 * i + 1, "gpu_memcpy");
    if (kernel) ev += StreamKernel("vector_add", t + 2'100, 5'000, 3 * i + 2);
    ev += StreamKernel("Memcpy DtoH (Device -> Pageable)", t + 7'200, 2'000, 3 * i + 3, "gpu_memcpy");
  }
  return "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"GPU 0\"}}" + ev +
         "]}";
}

TEST(RepeatedIterations, DeviceOnlyLoopIsIterations) {
  Trace trace = testing::ImportChrome(DeviceOnly(100, true));
  StepWindows w = TraceToSteps(trace, PrimaryWorker(trace));
  ASSERT_EQ(w.steps.size(), 99u) << w.source;
  EXPECT_EQ(w.steps[5].dur_ns(), 248'000'000);
  EXPECT_NE(w.source.find("3 device events"), std::string::npos) << w.source;
  Trace copies = testing::ImportChrome(DeviceOnly(100, false));
  EXPECT_TRUE(TraceToSteps(copies, PrimaryWorker(copies)).whole_window);
}

}  // namespace
}  // namespace stepdoctor
