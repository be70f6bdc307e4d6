// Traces of accelerator jobs whose device activity is not in the file, read on both sides of each
// condition: a wrapper around a read of a device value (.item()) is no CPU work; such reads are
// named as the host waiting on the device; a profiler whose runtime records are in the trace was
// on, so the advice is not to turn it on; a profiler that ran long and recorded no operator saw
// none of the job's work.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Doc;
using testing::FindFinding;
using testing::X;

constexpr const char* kH200 = ",\"cupti_version\":26,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\"}]";

// Three 5 ms steps of eager PyTorch with no runtime or kernel records: each runs a 3.8 ms wrapper
// (a compiled region) holding `inner` for 2.3 ms and aten::to for 0.6 ms.
std::string WrapperAround(const char* inner) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    const double t = i * 5000.0;
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 5000);
    ev += X("cpu_op", "aten::linear", 1, 1, t + 50, 130);
    ev += X("cpu_op", "Torch-Compiled Region: 0/0", 1, 1, t + 400, 3800);
    ev += X("cpu_op", "aten::min", 1, 1, t + 450, 60);
    ev += X("cpu_op", "aten::to", 1, 1, t + 600, 600);
    ev += X("cpu_op", inner, 1, 1, t + 1300, 2300);
    ev += X("cpu_op", "aten::sort", 1, 1, t + 3700, 300);
  }
  return Doc(ev, kH200);
}

std::string Evidence(const Finding& f) {
  std::string all;
  for (const auto& e : f.evidence) all += e.label + ": " + e.value + "\n";
  return all;
}

// Device activity lost, and most of the window in the driver's allocation and free calls (a
// free also waits for the device): named, with the caching allocator's advice and no gain figure;
// the same calls a few microseconds long are no finding.
TEST(DeviceMissingClasses, DriverAllocationsAndFreesAreNamedBothSides) {
  auto window = [](double free_us) {
    std::string ev;
    ev += X("cpu_op", "aten::bmm", 1, 1, 0, 8000);
    ev += X("cuda_runtime", "cudaMalloc", 1, 1, 100, free_us / 7);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 5200, 10);
    ev += X("cpu_op", "aten::einsum", 1, 1, 9000, 3000);
    ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, 9100, 10);
    ev += X("cuda_runtime", "cudaFree", 1, 1, 12500, free_us);
    ev += X("cuda_runtime", "cudaFree", 1, 1, 12600 + free_us, free_us / 10);
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 13000 + 1.1 * free_us, 2000);
    return Doc(ev, kH200);
  };
  const Report churn = AnalyzeTrace(testing::ImportChrome(window(34000)));
  const Finding* f = FindFinding(churn, "host_bound");
  ASSERT_NE(f, nullptr) << churn.verdict.summary;
  EXPECT_NE(f->title.find("device memory allocations and frees"), std::string::npos) << f->title;
  EXPECT_EQ(f->gain_upper_bound, 1.0);
  EXPECT_NE(f->fix.pytorch.find("expandable_segments"), std::string::npos);
  // A free waits for the device, whose work is not recorded: no host-bound verdict from it.
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_EQ(churn.verdict.summary.rfind("device activity not captured", 0), 0u) << churn.verdict.summary;
  const Report quick = AnalyzeTrace(testing::ImportChrome(window(20)));
  if (const Finding* q = FindFinding(quick, "host_bound"))
    EXPECT_EQ(q->title.find("allocations and frees"), std::string::npos) << q->title;
}

// Nothing launched in the window and no operator saying what the job runs: the advice names the
// job's iterations, not training steps; an optimizer step recorded says it trains.
TEST(DeviceMissingClasses, NoOperatorSaysTrainingBothSides) {
  const std::string ev = X("cuda_runtime", "cudaGetDeviceProperties_v2", 1, 1, 0, 1300) +
                         X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 2000, 185000, testing::Corr(1));
  const Report bare = AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  const Finding* f = FindFinding(bare, "device_activity_missing");
  ASSERT_NE(f, nullptr) << bare.verdict.summary;
  EXPECT_NE(f->fix.summary.find("covers the job's iterations"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.pytorch.find("train_step"), std::string::npos) << f->fix.pytorch;
  const Report trains =
      AnalyzeTrace(testing::ImportChrome(Doc(ev + X("user_annotation", "Optimizer.step#SGD.step", 1, 1, 190000, 100))));
  const Finding* t = FindFinding(trains, "device_activity_missing");
  ASSERT_NE(t, nullptr) << trains.verdict.summary;
  EXPECT_NE(t->fix.summary.find("covers training steps"), std::string::npos) << t->fix.summary;
}

TEST(DeviceMissingClasses, AWrapperAroundADeviceReadIsNoCpuWork) {
  const Report waits = AnalyzeTrace(testing::ImportChrome(WrapperAround("aten::item")));
  EXPECT_EQ(FindFinding(waits, "host_bound"), nullptr) << waits.verdict.summary;
  const Finding* missing = FindFinding(waits, "device_activity_missing");
  ASSERT_NE(missing, nullptr);
  const std::string ev = Evidence(*missing);
  EXPECT_NE(ev.find("host waiting on device results"), std::string::npos) << ev;
  EXPECT_NE(ev.find("2.9 ms per step"), std::string::npos) << ev;  // aten::item 2.3 + aten::to 0.6
  EXPECT_NE(ev.find("aten::item"), std::string::npos) << ev;

  // The same wrapper around 2.3 ms of arithmetic: 3.2 ms of its time computes on the CPU.
  const Report computes = AnalyzeTrace(testing::ImportChrome(WrapperAround("aten::mul")));
  const Finding* host = FindFinding(computes, "host_bound");
  ASSERT_NE(host, nullptr) << computes.verdict.summary;
  EXPECT_NE(host->title.find("Torch-Compiled Region"), std::string::npos) << host->title;
  const Finding* m2 = FindFinding(computes, "device_activity_missing");
  ASSERT_NE(m2, nullptr);
  const std::string ev2 = Evidence(*m2);
  EXPECT_EQ(ev2.find("aten::item"), std::string::npos) << ev2;  // only aten::to can wait: 0.6 ms of the 5 ms
  EXPECT_NE(ev2.find("0.6 ms per step"), std::string::npos) << ev2;
}

// A window of device queries and a closing synchronize, no launch; `span_us` > 0 adds Kineto's
// profiler span; `op` adds one operator.
std::string QueriesOnly(double span_us, bool op, const std::string& top) {
  std::string ev;
  ev += X("cuda_runtime", "cudaGetDeviceCount", 1, 1, 1000, 1, testing::Corr(1));
  ev += X("cuda_runtime", "cudaGetDeviceProperties_v2", 1, 1, 2000, 1400, testing::Corr(2));
  if (op) ev += X("cpu_op", "aten::empty", 1, 1, 4000, 20);
  ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 5000, 9000, testing::Corr(3));
  if (span_us > 0)
    ev += ",{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch "
          "Profiler\",\"ts\":" + std::to_string(14000 - span_us) + ",\"dur\":" + std::to_string(span_us) +
          ",\"args\":{\"Op count\":0}}";
  return Doc(ev, top);
}

std::string Notes(const Report& r) {
  std::string all;
  for (const auto& n : r.notes) all += n + "\n";
  return all;
}

TEST(DeviceMissingClasses, RecordedRuntimeCallsMeanTheDeviceTracerWasOn) {
  const std::string a100 = ",\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100\"}]";
  const Report r = AnalyzeTrace(testing::ImportChrome(QueriesOnly(0, true, a100)));
  const std::string notes = Notes(r);
  EXPECT_EQ(notes.find("Record it with"), std::string::npos) << notes;
  EXPECT_NE(notes.find("the device tracer was on"), std::string::npos) << notes;
  const Finding* f = FindFinding(r, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.summary.find("the device tracer was on"), std::string::npos) << f->fix.summary;
  EXPECT_NE(r.verdict.summary.find("no device work in the window"), std::string::npos) << r.verdict.summary;

  // Device evidence from operators alone (CPU activity only): the tracer was off; turn it on.
  std::string ev = X("cpu_op", "aten::cudnn_convolution", 1, 1, 0, 500) + X("cpu_op", "aten::relu", 1, 1, 600, 100);
  const Report off = AnalyzeTrace(testing::ImportChrome(Doc(ev)));
  EXPECT_NE(Notes(off).find("Record it with"), std::string::npos) << Notes(off);
}

TEST(DeviceMissingClasses, AProfilerThatRanLongAndRecordedNoOperatorSawNoneOfTheJob) {
  const std::string top = ",\"cupti_version\":26,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA RTX 3090\"}]";
  const Report none = AnalyzeTrace(testing::ImportChrome(QueriesOnly(60e6, false, top)));  // 60 s span
  EXPECT_NE(none.verdict.summary.find("nothing of the job's work recorded"), std::string::npos) << none.verdict.summary;
  const Finding* f = FindFinding(none, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.summary.find("other processes"), std::string::npos) << f->fix.summary;

  // One operator recorded: the profiler saw the process; the window, not the process, is wrong.
  const Report op = AnalyzeTrace(testing::ImportChrome(QueriesOnly(60e6, true, top)));
  EXPECT_EQ(op.verdict.summary.find("nothing of the job's work"), std::string::npos) << op.verdict.summary;
  EXPECT_NE(op.verdict.summary.find("no device work in the window"), std::string::npos) << op.verdict.summary;
  // No long profiler span: nothing says the profiler ran beyond its events.
  const Report short_span = AnalyzeTrace(testing::ImportChrome(QueriesOnly(0, false, top)));
  EXPECT_EQ(short_span.verdict.summary.find("nothing of the job's work"), std::string::npos);
}

// The advice's profiling loop is the loop the window ran: the model forward only (no backward
// pass, no optimizer step) profiles inference steps, a window with a backward pass training steps.
TEST(DeviceMissingClasses, TheProfilingLoopIsTheOneTheWindowRan) {
  auto window = [](bool backward) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      const double t = i * 3000.0;
      ev += X("cpu_op", "aten::cudnn_convolution", 1, 1, t, 500) + X("cpu_op", "aten::relu", 1, 1, t + 600, 100);
      if (backward)
        ev += X("cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", 1, 2, t + 800, 900);
    }
    return Doc(ev);
  };
  const Report fwd = AnalyzeTrace(testing::ImportChrome(window(false)));
  const Finding* f = FindFinding(fwd, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.pytorch.find("torch.inference_mode(): model(batch)"), std::string::npos) << f->fix.pytorch;
  EXPECT_EQ(f->fix.pytorch.find("train_step"), std::string::npos) << f->fix.pytorch;

  const Report train = AnalyzeTrace(testing::ImportChrome(window(true)));
  const Finding* g = FindFinding(train, "device_activity_missing");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->fix.pytorch.find("train_step(batch); prof.step()"), std::string::npos) << g->fix.pytorch;
  EXPECT_EQ(g->fix.pytorch.find("inference_mode"), std::string::npos) << g->fix.pytorch;
}

// Launches recorded, kernels lost: where a device-wide synchronize after the last launch ends in
// the window, the device finished there, so "the profiler stopped before the device finished" is
// no cause and the snippet adds no synchronize; with the sync before a launch, it stays.
TEST(DeviceMissingClasses, ADeviceSyncAfterTheLastLaunchRulesOutAnEarlyStopBothSides) {
  auto report = [](bool sync_last) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      const double t = i * 10000.0;
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, 10000);
      ev += X("cpu_op", "aten::square", 1, 1, t + 100, 300);
      ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 200, 20, testing::Corr(10 + i));
    }
    ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, sync_last ? 29000 : 20100, 500, testing::Corr(99));
    return AnalyzeTrace(testing::ImportChrome(Doc(ev, kH200)));
  };
  const Report synced = report(true);
  const Finding* f = FindFinding(synced, "device_activity_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(Evidence(*f).find("cudaDeviceSynchronize (0.50 ms) after the last launch"), std::string::npos) << Evidence(*f);
  EXPECT_EQ(f->fix.summary.find("stops before the device has finished"), std::string::npos) << f->fix.summary;
  EXPECT_EQ(f->fix.pytorch.find("torch.cuda.synchronize()"), std::string::npos) << f->fix.pytorch;
  const Report early = report(false);
  const Finding* g = FindFinding(early, "device_activity_missing");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->fix.summary.find("stops before the device has finished"), std::string::npos) << g->fix.summary;
  EXPECT_NE(g->fix.pytorch.find("torch.cuda.synchronize()"), std::string::npos);
}

// SageMaker's profiler records TensorFlow's NcclManager collectives on a lane of that name, by
// type (kAllReduce): an NCCL collective runs on GPUs, so a file holding only one is a GPU job
// whose device activity is missing, not a CPU computing. A gloo collective says nothing either way.
TEST(DeviceMissingClasses, AnNcclManagerCollectiveIsAnAcceleratorJobBothSides) {
  auto report = [](const char* name) {
    const std::string j = std::string("[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"NcclManager\"}},\n") +
                          "{\"ph\": \"X\", \"name\": \"" + name + "\", \"ts\": 31901600, \"pid\": 1, \"dur\": 130183}\n]";
    return AnalyzeTrace(testing::ImportChrome(j));
  };
  const Report nccl = report("kAllReduce");
  EXPECT_NE(FindFinding(nccl, "device_activity_missing"), nullptr) << nccl.verdict.summary;
  EXPECT_EQ(FindFinding(nccl, "compute_bound"), nullptr) << nccl.verdict.summary;
  const Report gloo = report("gloo:all_reduce");
  EXPECT_EQ(FindFinding(gloo, "device_activity_missing"), nullptr) << gloo.verdict.summary;
}

// Kineto lists the machine's GPUs (deviceProperties) wherever CUDA is available, also for a job
// that ran on the CPU: where the profiler's memory events put every allocation on the CPU and
// nothing else says the device was used, the trace is CPU-only (a note names the unused device),
// not an accelerator job whose device activity went missing. Without memory events the listed
// device still counts.
TEST(DeviceMissingClasses, AListedDeviceWithEveryAllocationOnTheCpuWasUnusedBothSides) {
  auto report = [](bool memory) {
    std::string ev = X("user_annotation", "model_inference", 1, 1, 0, 100000);
    for (int k = 0; k < 8; ++k) {
      ev += X("cpu_op", "aten::addmm", 1, 1, 1000 + k * 12000, 11000);
      if (memory)
        ev += ",{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" +
              std::to_string(1000 + k * 12000) + ",\"args\":{\"Total Reserved\":0,\"Total Allocated\":" +
              std::to_string((k + 1) * 1000000) + ",\"Bytes\":1000000,\"Addr\":1,\"Device Type\":0,\"Device Id\":-1}}";
    }
    return AnalyzeTrace(testing::ImportChrome(Doc(ev, kH200)));
  };
  const Report cpu = report(true);
  EXPECT_EQ(FindFinding(cpu, "device_activity_missing"), nullptr) << cpu.verdict.summary;
  EXPECT_EQ(cpu.coverage.device_activity, "cpu_only");
  bool note = false;
  for (const auto& n : cpu.notes) note |= n.find("did not use it") != std::string::npos && n.find("H200") != std::string::npos;
  EXPECT_TRUE(note);
  const Report listed = report(false);
  EXPECT_NE(FindFinding(listed, "device_activity_missing"), nullptr) << listed.verdict.summary;
}

// Device records lost (WSL 2), and a CUDA extension's cudaDeviceSynchronize outside any operator
// holds the host most of each step: the verdict says the device's unrecorded work sets the pace.
// The same steps with the wait a small share of them say nothing of it.
TEST(DeviceMissingClasses, HostBlockedOnTheDeviceMostOfTheStepIsStated) {
  auto steps = [](double sync_us) {
    std::string ev;
    for (int i = 0; i < 3; ++i) {
      const double t = i * (sync_us + 1000);
      ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, sync_us + 1000);
      ev += X("python_function", "<built-in method myFA1 of PyCapsule object>", 1, 1, t + 100, sync_us + 600);
      for (int k = 0; k < 4; ++k) ev += X("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 150 + 20 * k, 10);
      ev += X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, t + 300, sync_us);
      ev += X("cpu_op", "aten::empty", 1, 1, t + sync_us + 400, 200);
    }
    return Doc(ev, kH200);
  };
  const Report blocked = AnalyzeTrace(testing::ImportChrome(steps(70000)));
  EXPECT_EQ(blocked.verdict.summary.rfind("device activity not captured", 0), 0u) << blocked.verdict.summary;
  EXPECT_NE(blocked.verdict.summary.find("the host waits on the device 9"), std::string::npos) << blocked.verdict.summary;
  EXPECT_NE(blocked.verdict.summary.find("unrecorded work sets the pace"), std::string::npos);
  const Report brief = AnalyzeTrace(testing::ImportChrome(steps(300)));
  EXPECT_EQ(brief.verdict.summary.find("sets the pace"), std::string::npos) << brief.verdict.summary;
}

}  // namespace
}  // namespace stepdoctor
