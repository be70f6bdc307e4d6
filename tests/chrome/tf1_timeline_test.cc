// TensorFlow 1.x timeline.Timeline traces: a GPU's work is recorded on several lanes at once
// (op-level, stream:all, per stream, memcpy); its busy time must be counted once.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

Trace ImportInline(const std::string& json) {
  Trace t;
  auto src = MemorySource(json, "timeline.json");
  Status s = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

const Timeline* Lane(const Trace& t, const std::string& name) {
  for (const auto& tl : t.timelines)
    if (tl.name == name) return &tl;
  return nullptr;
}

double DevicePct(const Report& r) {
  double pct = 0;
  for (const auto& b : r.breakdown)
    if (b.category == "device_compute" || b.category == "collectives" || b.category == "memcpy") pct += b.pct;
  return pct;
}

std::string Process(int pid, const std::string& name) {
  return R"({"name": "process_name", "ph": "M", "pid": )" + std::to_string(pid) + R"(, "args": {"name": ")" + name +
         R"("}},)";
}
std::string Op(int pid, const std::string& name, int ts, int dur) {
  return R"({"ph": "X", "cat": "Op", "name": ")" + name + R"(", "pid": )" + std::to_string(pid) +
         R"(, "tid": 0, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + "},";
}

std::string OpOn(int pid, int tid, const std::string& name, int ts, int dur, const std::string& node = "") {
  std::string args = node.empty() ? "" : R"(, "args": {"name": ")" + node + R"(", "op": ")" + name + R"("})";
  return R"({"ph": "X", "cat": "Op", "name": ")" + name + R"(", "pid": )" + std::to_string(pid) + R"(, "tid": )" +
         std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + args + "},";
}

// The kind of the first event named `name` on the lane (any of its threads) of the local CPU.
EventKind CpuKindOf(const Trace& t, const std::string& name) {
  for (const auto& tl : t.timelines) {
    if (tl.name != "/job:localhost/replica:0/task:0/device:CPU:0") continue;
    EXPECT_EQ(tl.kind, TimelineKind::kHostThread);
    for (size_t i = 0; i < tl.ev.size(); ++i)
      if (t.str(tl.ev.name[i]) == name) return tl.ev.kind[i];
  }
  return EventKind::kCount_;
}

double CategoryPct(const Report& r, const std::string& category) {
  for (const auto& b : r.breakdown)
    if (b.category == category) return b.pct;
  return 0;
}

// One Conv2D whose op-level lane spans 1000 us (cuDNN autotuning on the host), while the GPU runs
// a 100 us kernel and a 10 us copy: the GPU is busy 110 us of the 1010 us window.
std::string Tf1GpuTrace(bool per_stream_lanes) {
  std::string j = R"({"traceEvents": [)";
  j += Process(1, "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  j += Process(2, "/device:GPU:0/stream:all Compute");
  j += Process(4, "/device:GPU:0/memcpy Compute");
  j += Process(6, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += Op(1, "Conv2D", 0, 1000);
  j += Op(2, "Conv2D", 900, 100);
  j += Op(2, "MEMCPYHtoD", 1000, 10);
  j += Op(4, "MEMCPYHtoD", 1000, 10);
  if (per_stream_lanes) {
    j += Process(3, "/device:GPU:0/stream:7 Compute");
    j += Process(5, "/device:GPU:0/stream:8 Compute");
    j += Op(3, "Conv2D", 900, 100);
    j += Op(5, "MEMCPYHtoD", 1000, 10);
  }
  j += Op(6, "_SOURCE", 0, 5);
  j += "{}]}";
  return j;
}

TEST(Tf1Timeline, PerStreamLanesAreTheDeviceAndTheRestDerived) {
  Trace t = ImportInline(Tf1GpuTrace(true));
  EXPECT_EQ(t.framework, Framework::kTensorFlow);
  const Timeline* op_level = Lane(t, "/job:localhost/replica:0/task:0/device:GPU:0");
  const Timeline* all = Lane(t, "/device:GPU:0/stream:all");
  const Timeline* memcpy = Lane(t, "/device:GPU:0/memcpy");
  const Timeline* s7 = Lane(t, "/device:GPU:0/stream:7");
  const Timeline* s8 = Lane(t, "/device:GPU:0/stream:8");
  ASSERT_TRUE(op_level && all && memcpy && s7 && s8);
  // The op-level lane is the executor's Compute calls on the host (the kernel starts as it ends).
  EXPECT_EQ(op_level->kind, TimelineKind::kHostThread);
  EXPECT_EQ(t.device(op_level->device).kind, DeviceKind::kHostCpu);
  EXPECT_EQ(all->kind, TimelineKind::kDerived);
  EXPECT_EQ(memcpy->kind, TimelineKind::kDerived);
  EXPECT_EQ(s7->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s8->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s7->ev.kind[0], EventKind::kKernel);
  EXPECT_EQ(s8->ev.kind[0], EventKind::kMemcpyH2D);

  Report r = AnalyzeTrace(t);
  EXPECT_NEAR(DevicePct(r), 100.0 * 110 / 1010, 0.5);
}

// Without the GPU tracer's lanes the op-level lane is still the executor's host-side record (each
// op its Compute call, as beside the tracer's lanes: the same job traced both ways shows the same
// op times there): a host thread, with the GPU listed and its own activity not recorded.
TEST(Tf1Timeline, OpLevelLaneWithoutTracerLanesIsTheHostsAndTheDeviceIsMissing) {
  std::string j = R"({"traceEvents": [)";
  j += Process(1, "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  j += Process(6, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += Op(1, "Conv2D", 0, 1000);
  j += Op(1, "BiasAdd", 1000, 500);
  j += Op(6, "_SOURCE", 0, 5);
  j += "{}]}";
  Trace t = ImportInline(j);
  const Timeline* op_level = Lane(t, "/job:localhost/replica:0/task:0/device:GPU:0");
  ASSERT_TRUE(op_level);
  EXPECT_EQ(op_level->kind, TimelineKind::kHostThread);
  bool gpu_listed = false;
  for (const auto& d : t.devices) gpu_listed |= d.kind == DeviceKind::kGpu;
  EXPECT_TRUE(gpu_listed);
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.coverage.device_activity, "missing");
  EXPECT_NEAR(r.steps.median_ms, 1.5, 0.01);  // the step spans the GPU ops' host time, not the CPU lane's 5 us
}

TEST(Tf1Timeline, StreamAllIsTheDeviceWhereThereAreNoPerStreamLanes) {
  Trace t = ImportInline(Tf1GpuTrace(false));
  const Timeline* all = Lane(t, "/device:GPU:0/stream:all");
  const Timeline* memcpy = Lane(t, "/device:GPU:0/memcpy");
  ASSERT_TRUE(all && memcpy);
  EXPECT_EQ(all->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(memcpy->kind, TimelineKind::kDerived);  // its copies are on stream:all too
  Report r = AnalyzeTrace(t);
  EXPECT_NEAR(DevicePct(r), 100.0 * 110 / 1010, 0.5);
}

// A file cut short (or a tracer that dropped records) can end before the per-stream lanes that
// hold the kernels: those lanes then hold fewer kernels than stream:all, which is the record;
// stream:all holds no copies, so the memcpy lane is the copies' record.
TEST(Tf1Timeline, StreamAllIsTheDeviceWherePerStreamLanesHoldFewerKernels) {
  std::string j = R"({"traceEvents": [)";
  j += Process(1, "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  j += Process(2, "/device:GPU:0/stream:all Compute");
  j += Process(4, "/device:GPU:0/memcpy Compute");
  j += Process(5, "/device:GPU:0/stream:8 Compute");
  j += Process(6, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += Op(1, "Conv2D", 0, 1000);
  j += Op(2, "Conv2D", 900, 100);
  j += Op(4, "MEMCPYHtoD", 1000, 10);
  j += Op(5, "MEMCPYHtoD", 1000, 10);  // the copy's stream; the kernel's stream was cut off
  j += Op(6, "_SOURCE", 0, 5);
  j += "{}]}";
  Trace t = ImportInline(j);
  const Timeline* all = Lane(t, "/device:GPU:0/stream:all");
  const Timeline* memcpy = Lane(t, "/device:GPU:0/memcpy");
  const Timeline* s8 = Lane(t, "/device:GPU:0/stream:8");
  ASSERT_TRUE(all && memcpy && s8);
  EXPECT_EQ(all->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(memcpy->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s8->kind, TimelineKind::kDerived);
  Report r = AnalyzeTrace(t);
  EXPECT_NEAR(DevicePct(r), 100.0 * 110 / 1010, 0.5);
  EXPECT_NEAR(CategoryPct(r, "device_compute"), 100.0 * 100 / 1010, 0.5);
}

// A TF1 timeline is a session's graph run, and TF2 names a tf.function's graph __inference_...:
// either way the coverage says graph execution is in use, so no finding advises tf.function.
TEST(Tf1Timeline, SessionGraphAndTfFunctionAreGraphExecutionInUse) {
  Report tf1 = AnalyzeTrace(ImportInline(Tf1GpuTrace(true)));
  EXPECT_NE(std::find(tf1.coverage.applied.begin(), tf1.coverage.applied.end(), "TensorFlow graph execution"),
            tf1.coverage.applied.end());
  std::string tf2 = R"({"traceEvents": [)";
  tf2 += Process(1, "/host:CPU");
  tf2 += Op(1, "__inference_train_function_1234", 0, 500);
  tf2 += Op(1, "MatMul", 10, 400);
  tf2 += "{}]}";
  Report f = AnalyzeTrace(ImportInline(tf2));
  EXPECT_NE(std::find(f.coverage.applied.begin(), f.coverage.applied.end(), "TensorFlow graph execution"),
            f.coverage.applied.end());
  std::string eager = R"({"traceEvents": [)";
  eager += Process(1, "/host:CPU");
  eager += Op(1, "MatMul", 10, 400);
  eager += "{}]}";
  Report e = AnalyzeTrace(ImportInline(eager));
  EXPECT_EQ(std::find(e.coverage.applied.begin(), e.coverage.applied.end(), "TensorFlow graph execution"),
            e.coverage.applied.end());
}

TEST(Tf1Timeline, CpuOnlyOpsAreOperatorsOnAHostThread) {
  std::string j = R"({"traceEvents": [)";
  j += Process(0, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += Op(0, "MatMul", 0, 600);
  j += Op(0, "BiasAdd", 600, 200);
  j += Op(0, "Relu", 900, 100);  // 100 us gap before it: no operator runs
  j += "{}]}";
  Trace t = ImportInline(j);
  EXPECT_EQ(t.framework, Framework::kTensorFlow);
  const Timeline* cpu = Lane(t, "/job:localhost/replica:0/task:0/device:CPU:0");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->kind, TimelineKind::kHostThread);
  for (size_t i = 0; i < cpu->ev.size(); ++i) EXPECT_EQ(cpu->ev.kind[i], EventKind::kFrameworkOp);
  Report r = AnalyzeTrace(t);
  // 900 us of the 1000 us window run operators (the CPU is the device on a CPU-only trace).
  for (const auto& b : r.breakdown)
    if (b.category == "device_compute") {
      EXPECT_NEAR(b.pct, 90.0, 0.5);
    }
}

// A CPU-only TF1 training step of softmax regression (peterz5): the executor's _SOURCE NoOp takes
// 1168 us of the 1715 us step (7-52 us in other runs' timelines: this run was setting up); the
// other bookkeeping ops (VariableV2, Const, _Arg, the train op's NoOp) 60 us; the ops that compute
// 411 us.
std::string CpuStepWithExecutorOverhead() {
  std::string j = R"({"traceEvents": [)";
  j += Process(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += OpOn(1, 0, "NoOp", 0, 1168, "_SOURCE");
  j += OpOn(1, 0, "VariableV2", 1200, 26, "Variable");
  j += OpOn(1, 0, "Const", 1230, 19, "gradients/add_grad/Shape_1");
  j += OpOn(1, 0, "_Arg", 1260, 10, "_arg_Placeholder_0_0");
  j += OpOn(1, 1, "MatMul", 1280, 125, "MatMul");
  j += OpOn(1, 0, "Add", 1410, 18, "add");
  j += OpOn(1, 0, "SparseSoftmaxCrossEntropyWithLogits", 1430, 55, "xentropy");
  j += OpOn(1, 0, "ApplyGradientDescent", 1490, 11, "GradientDescent/update_Variable");
  j += OpOn(1, 1, "MatMul", 1500, 202, "gradients/MatMul_grad/MatMul_1");
  j += OpOn(1, 0, "NoOp", 1710, 5, "GradientDescent");
  j += "{}]}";
  return j;
}

TEST(Tf1Timeline, ExecutorBookkeepingOpsAreFrameworkOverheadNotCompute) {
  Trace t = ImportInline(CpuStepWithExecutorOverhead());
  for (const char* op : {"NoOp", "VariableV2", "Const", "_Arg"}) EXPECT_EQ(CpuKindOf(t, op), EventKind::kFrameworkOverhead) << op;
  for (const char* op : {"MatMul", "Add", "SparseSoftmaxCrossEntropyWithLogits", "ApplyGradientDescent"})
    EXPECT_EQ(CpuKindOf(t, op), EventKind::kFrameworkOp) << op;

  Report r = AnalyzeTrace(t);
  // Operators >= 10 us compute 411 us; the slow _SOURCE is the run setting up (one-off start-up);
  // the other bookkeeping (60 us) and the gaps between ops are overhead.
  EXPECT_NEAR(CategoryPct(r, "device_compute"), 100.0 * 411 / 1715, 0.5);
  EXPECT_NEAR(CategoryPct(r, "other"), 100.0 * 1168 / 1715, 0.5);
  EXPECT_NEAR(CategoryPct(r, "host_compute"), 100.0 * (1715 - 411 - 1168) / 1715, 0.5);
  // The headline and the findings say the same thing: a cold first run, never compute-bound.
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].id, "cold_start") << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("cold first pass"), std::string::npos) << r.verdict.summary;
  ASSERT_FALSE(r.findings[0].top_events.empty());
  EXPECT_EQ(r.findings[0].top_events[0].name, "_SOURCE");
  for (const auto& f : r.findings) EXPECT_NE(f.id, "compute_bound");
  // What is left of the run computes 411 us against 136 us of overhead: no host-bound finding.
  for (const auto& f : r.findings) EXPECT_NE(f.id, "host_bound") << f.title;
}

// _Send/_Recv hand a tensor over inside one process (bookkeeping); between tasks a receive (_Recv,
// the distributed runtime's RecvTensor) waits on the network: communication, not compute. A send
// only hands its tensor to the rendezvous.
TEST(Tf1Timeline, RecvIsBookkeepingOnlyInsideOneTask) {
  std::string one = R"({"traceEvents": [)";
  one += Process(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  one += Op(1, "_Recv", 0, 500);
  one += Op(1, "MatMul", 500, 100);
  one += Op(1, "RecvTensor", 600, 300);
  one += Op(1, "_Send", 900, 10);
  std::string two = one + Process(2, "/job:worker/replica:0/task:1/device:CPU:0 Compute") + Op(2, "MatMul", 0, 100);
  one += "{}]}";
  two += "{}]}";
  Trace t1 = ImportInline(one);
  EXPECT_EQ(CpuKindOf(t1, "_Recv"), EventKind::kFrameworkOverhead);
  Trace t2 = ImportInline(two);
  EXPECT_EQ(CpuKindOf(t1, "RecvTensor"), EventKind::kFrameworkOverhead);
  EXPECT_EQ(CpuKindOf(t2, "_Recv"), EventKind::kCollective);
  EXPECT_EQ(CpuKindOf(t2, "RecvTensor"), EventKind::kCollective);
  EXPECT_EQ(CpuKindOf(t2, "_Send"), EventKind::kFrameworkOverhead);
  EXPECT_EQ(CpuKindOf(t2, "MatMul"), EventKind::kFrameworkOp);
}

// An MNIST CNN training sess.run on a GPU (mnistxla): IteratorGetNext on the CPU lane waits
// 16.9 ms before the GPU's kernels (recorded on stream:all and again on stream:13) run 12.5 ms;
// the executor's bookkeeping ops (_Arg, NoOp, _Retval) sit on the CPU lane too. Input-bound.
TEST(Tf1Timeline, InputWaitBeforeTheKernelsIsInputBound) {
  std::string j = R"({"traceEvents": [)";
  j += Process(5, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  j += Process(9, "/device:GPU:0/memcpy Compute");
  j += Process(11, "/device:GPU:0/stream:all Compute");
  j += Process(13, "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  j += Process(15, "/device:GPU:0/stream:13 Compute");
  j += OpOn(5, 0, "NoOp", 0, 6, "_SOURCE");
  j += OpOn(5, 0, "_Arg", 8, 11, "_arg_handle_0_0");
  j += OpOn(5, 0, "IteratorGetNext", 20, 16900, "IteratorGetNext");
  j += OpOn(5, 0, "_Retval", 30300, 3, "_retval_loss_0_0");
  j += OpOn(13, 0, "Conv2D", 16950, 300, "conv1/Conv2D");
  j += OpOn(13, 0, "MatMul", 17300, 200, "fc/MatMul");
  for (int pid : {11, 15}) {
    j += OpOn(pid, 0, "MEMCPYHtoD", 16925, 60, "edge_1_IteratorGetNext");
    j += OpOn(pid, 0, "Conv2D", 17000, 8000, "conv1/Conv2D");
    j += OpOn(pid, 0, "MatMul", 25000, 4500, "fc/MatMul");
  }
  j += OpOn(9, 0, "MEMCPYHtoD", 16925, 60, "edge_1_IteratorGetNext");
  j += "{}]}";
  Trace t = ImportInline(j);
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kInput) << r.verdict.summary;
  EXPECT_NEAR(r.window_ms, 30.303, 0.001);
  EXPECT_NEAR(CategoryPct(r, "input"), 100.0 * 16900 / 30303, 0.5);  // the device idles all of it
  EXPECT_NEAR(DevicePct(r), 100.0 * 12560 / 30303, 0.5);
  for (const auto& k : r.top_kernels) EXPECT_EQ(k.count, 1) << k.name;  // once each, not per lane
  EXPECT_EQ(r.steps.count, 1);
  EXPECT_EQ(r.coverage.steps, "inferred");
}

// A TF1 timeline is one sess.run: with no step markers its window is one step, inferred from the
// run (one _SOURCE per device lane), not "no steps". A file that merges several runs' StepStats
// (two _SOURCE on one lane) stays one region.
TEST(Tf1Timeline, OneSessionRunIsOneInferredStep) {
  Trace t = ImportInline(CpuStepWithExecutorOverhead());
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_TRUE(t.workers[0].single_run);
  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.steps.count, 1);
  EXPECT_FALSE(r.steps.whole_window);
  EXPECT_TRUE(r.steps.inferred);
  EXPECT_NEAR(r.steps.median_ms, 1.715, 1e-6);
  EXPECT_NE(r.steps.source.find("sess.run"), std::string::npos) << r.steps.source;
  EXPECT_EQ(r.coverage.steps, "inferred");
  bool said = false;
  for (const auto& e : r.coverage.evidence) said |= e.find("sess.run") != std::string::npos;
  EXPECT_TRUE(said);

  std::string two_runs = CpuStepWithExecutorOverhead();
  two_runs.insert(two_runs.rfind("{}]}"), OpOn(1, 0, "NoOp", 5000, 900, "_SOURCE") + OpOn(1, 0, "MatMul", 6000, 100, "MatMul"));
  Trace m = ImportInline(two_runs);
  EXPECT_FALSE(m.workers[0].single_run);
  // Two runs merged: the first is a step, from its _SOURCE to the second's (whose end is unknown).
  Report rm = AnalyzeTrace(m);
  EXPECT_FALSE(rm.steps.whole_window);
  EXPECT_EQ(rm.steps.count, 1);
  EXPECT_NE(rm.steps.source.find("2 sess.run calls"), std::string::npos) << rm.steps.source;
  EXPECT_EQ(rm.coverage.steps, "inferred");
}

// An early TF 1.x timeline (sunblaze, TF ~1.2) names its lanes with legacy device names: "/gpu:0/...",
// ".../task:0/gpu:0", ".../cpu:0". One sess.run of random_normal + MatMul: the op-level lane holds
// 439 ms of one-time GPU start-up inside RandomStandardNormal, whose kernel runs 0.2 ms; the GPU's
// streams are busy 3.2 ms of the 694.6 ms window.
std::string LegacyNamedTf1GpuTrace() {
  std::string j = R"({"traceEvents": [)";
  j += Process(0, "Allocators");
  j += Process(1, "/job:localhost/replica:0/task:0/cpu:0 Compute");
  j += Process(2, "/job:localhost/replica:0/task:0/cpu:0 Tensors");
  j += Process(3, "/job:localhost/replica:0/task:0/gpu:0 Compute");
  j += Process(5, "/gpu:0/stream:all Compute");
  j += Process(7, "/gpu:0/stream:12 Compute");
  j += Process(9, "/gpu:0/memcpy Compute");
  j += Process(13, "/gpu:0/stream:14 Compute");
  j += Op(1, "NoOp", 12, 21);
  j += Op(3, "NoOp", 0, 12781);
  j += Op(3, "RandomStandardNormal", 13000, 439210);
  j += Op(3, "MatMul", 452300, 237216);
  for (int pid : {5, 7}) {
    j += Op(pid, "RandomStandardNormal", 452024, 213);
    j += Op(pid, "MatMul", 689484, 2406);
  }
  j += Op(9, "MEMCPYDtoH", 694000, 600);
  j += Op(13, "MEMCPYDtoH", 694000, 600);
  j += "{}]}";
  return j;
}

TEST(Tf1Timeline, LegacyDeviceNamesAreGpuLanes) {
  Trace t = ImportInline(LegacyNamedTf1GpuTrace());
  EXPECT_EQ(t.framework, Framework::kTensorFlow);
  const Timeline* op_level = Lane(t, "/job:localhost/replica:0/task:0/device:GPU:0");
  const Timeline* all = Lane(t, "/device:GPU:0/stream:all");
  const Timeline* s12 = Lane(t, "/device:GPU:0/stream:12");
  const Timeline* s14 = Lane(t, "/device:GPU:0/stream:14");
  const Timeline* memcpy = Lane(t, "/device:GPU:0/memcpy");
  const Timeline* cpu = Lane(t, "/job:localhost/replica:0/task:0/device:CPU:0");
  ASSERT_TRUE(op_level && all && s12 && s14 && memcpy && cpu);
  EXPECT_EQ(op_level->kind, TimelineKind::kHostThread);
  EXPECT_EQ(all->kind, TimelineKind::kDerived);
  EXPECT_EQ(memcpy->kind, TimelineKind::kDerived);
  EXPECT_EQ(s12->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s14->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(s14->ev.kind[0], EventKind::kMemcpyD2H);
  EXPECT_EQ(cpu->kind, TimelineKind::kHostThread);
  EXPECT_EQ(t.device(s12->device).kind, DeviceKind::kGpu);

  Report r = AnalyzeTrace(t);
  EXPECT_EQ(r.coverage.framework, "tensorflow");
  EXPECT_EQ(r.coverage.device_activity, "captured");
  EXPECT_NEAR(r.window_ms, 694.6, 0.1);
  EXPECT_NEAR(DevicePct(r), 100.0 * 3219 / 694588, 0.05);
  // Each kernel once (not on stream:all and stream:12 both); the op-level lane's op once among the
  // host's operators (its Compute call), not again as device work.
  int kernels = 0, ops = 0;
  for (const auto& k : r.top_kernels)
    if (k.name == "RandomStandardNormal") kernels += int(k.count);
  for (const auto& o : r.top_ops)
    if (o.name == "RandomStandardNormal") ops += int(o.count);
  EXPECT_EQ(kernels, 1);
  EXPECT_EQ(ops, 1);
  EXPECT_NE(r.verdict.bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_EQ(r.verdict.summary.find("CPU"), std::string::npos) << r.verdict.summary;
  // A cold TF1 run: how to trace a warm one is said in TF1's API (a later sess.run's full trace),
  // not TF2's callbacks, and the snippet runs the traced run's fetches, not a train_op it may lack.
  bool note = false;
  for (const auto& n : r.notes)
    if (n.find("one cold first pass") != std::string::npos) {
      note = true;
      EXPECT_NE(n.find("RunOptions(trace_level=FULL_TRACE)"), std::string::npos) << n;
      EXPECT_EQ(n.find("keras"), std::string::npos) << n;
    }
  EXPECT_TRUE(note);
  const Finding* cold = testing::FindFinding(r, "cold_start");
  ASSERT_NE(cold, nullptr);
  EXPECT_NE(cold->fix.tensorflow.find("sess.run(fetches)"), std::string::npos) << cold->fix.tensorflow;
}

// kittibox (wild/SOURCES.md): one inference sess.run whose op-level Conv2D lane holds 2.4 s of
// cuDNN autotuning; the GPU's streams are busy 1849 ms of the 4352 ms window, about 42%.
TEST(Tf1Timeline, KittiboxDeviceBusyIsTheStreamsNotTheOpLane) {
  SD_CORPUS_OR_SKIP(path, "wild/kittibox-timeline_01.json");
  auto imp = ImportPaths({path});
  ASSERT_TRUE(imp.ok()) << imp.message();
  EXPECT_EQ(imp->trace.framework, Framework::kTensorFlow);
  Report r = AnalyzeTrace(imp->trace);
  EXPECT_NEAR(r.window_ms, 4352, 25);
  EXPECT_NEAR(DevicePct(r), 42.0, 3.0);
  // The first Conv2D's 2.3 s on the op lane, against its later calls, is autotuning: a cold first
  // pass, said as such (not a compute or host verdict).
  bool cold = false;
  for (const auto& f : r.findings) cold |= f.id == "cold_start";
  EXPECT_TRUE(cold) << r.verdict.summary;
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown) << r.verdict.summary;
}

// TF1 input queues: the step blocks in QueueDequeue*V2 until the queue runners have filled the
// queue, which is an input wait like IteratorGetNext (a queue that keeps up costs little there).
TEST(Tf1Timeline, QueueDequeueIsAnInputWait) {
  auto run = [](int dequeue_us) {
    std::string j = R"({"traceEvents": [)";
    j += Process(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
    j += Op(1, "_SOURCE", 0, 5);
    j += Op(1, "QueueDequeueManyV2", 10, dequeue_us);
    j += Op(1, "Conv2D", 20 + dequeue_us, 4000);
    j += "{}]}";
    return AnalyzeTrace(ImportInline(j));
  };
  Report starved = run(6000);
  double input = 0;
  for (const auto& b : starved.breakdown)
    if (b.category == "input") input = b.pct;
  EXPECT_NEAR(input, 100.0 * 6000 / 10020, 1.0);
  EXPECT_EQ(starved.verdict.bottleneck, Bottleneck::kInput) << starved.verdict.summary;
  Report fed = run(200);
  EXPECT_NE(fed.verdict.bottleneck, Bottleneck::kInput) << fed.verdict.summary;
}

// A sess.run that makes its iterator (OneShotIterator) and then waits for the first batch: the
// wait includes the pipeline's start-up, and one such step is no steady input wait.
TEST(Tf1Timeline, AnIteratorMadeInTheStepIsItsStartUp) {
  auto run = [](const char* maker) {
    std::string j = R"({"traceEvents": [)";
    j += Process(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
    j += Op(1, "_SOURCE", 0, 5);
    j += Op(1, maker, 10, 200);
    j += Op(1, "IteratorGetNext", 220, 6000);
    j += Op(1, "Conv2D", 6230, 4000);
    j += "{}]}";
    return AnalyzeTrace(ImportInline(j));
  };
  Report made = run("OneShotIterator");
  // The same op handing back its iterator in microseconds made nothing in this step.
  {
    std::string j = R"({"traceEvents": [)";
    j += Process(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
    j += Op(1, "_SOURCE", 0, 5) + Op(1, "OneShotIterator", 10, 6) + Op(1, "IteratorGetNext", 20, 6000) +
         Op(1, "Conv2D", 6030, 4000) + "{}]}";
    const Report handed = AnalyzeTrace(ImportInline(j));
    const Finding* h = testing::FindFinding(handed, "input_bound");
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(testing::EvidenceText(*h).find("pipeline's start-up"), std::string::npos);
  }
  const Finding* f = testing::FindFinding(made, "input_bound");
  ASSERT_NE(f, nullptr) << made.verdict.summary;
  EXPECT_NE(testing::EvidenceText(*f).find("its first batch includes the pipeline's start-up"), std::string::npos);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_NE(f->fix.summary.find("profile later steps"), std::string::npos) << f->fix.summary;
  Report steady = run("Identity");  // no iterator made in the step
  const Finding* g = testing::FindFinding(steady, "input_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(testing::EvidenceText(*g).find("pipeline's start-up"), std::string::npos);
  EXPECT_EQ(g->severity, FindingSeverity::kHigh);
}

}  // namespace
}  // namespace stepdoctor
