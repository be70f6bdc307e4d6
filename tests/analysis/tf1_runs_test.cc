// TF1 timelines that merge several sess.run calls (Tf1RunStarts): each run starts its executors
// with a _SOURCE NoOp, so the runs are the steps; a _SOURCE inside a running op (a function's
// executor) starts none. A bookkeeping op that holds a GPU's op lane past kOneOffRuntimeNs while
// the device idles is the first run setting up. compute_bound says where host time has nothing
// recorded (kUntracedNotePct).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf1_runs.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/runtime_calls.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::Tf1Lane;
using testing::Tf1Node;
using testing::Tf1Op;

constexpr const char* kCpu = "/job:localhost/replica:0/task:0/device:CPU:0 Compute";
constexpr const char* kGpuOps = "/job:localhost/replica:0/task:0/device:GPU:0 Compute";

// `runs` sess.run calls on the CPU: each its _SOURCE, then 30 ops of 500 us, then `gap_us` of
// Python before the next run. With `wrapped`, one op spans every run (they are a function's
// executors inside one run); with `gpu_partition`, each run's GPU partition starts its own
// _SOURCE `partition_at_us` after the CPU's.
std::string MergedRuns(int runs, double gap_us, bool wrapped = false, bool gpu_partition = false,
                       double partition_at_us = 5) {
  std::string ev = Tf1Lane(1, kCpu) + (gpu_partition ? Tf1Lane(2, kGpuOps) : std::string());
  const double period = 10 + 30 * 500 + gap_us;
  if (wrapped) ev += Tf1Op(1, "PartitionedCall", 0, runs * period);
  for (int r = 0; r < runs; ++r) {
    const double t = 1 + r * period;
    ev += Tf1Node(1, "NoOp", "_SOURCE", t, 10);
    if (gpu_partition) ev += Tf1Node(2, "NoOp", "_SOURCE", t + partition_at_us, 3);
    for (int k = 0; k < 30; ++k) ev += Tf1Op(1, k % 2 ? "MatMul" : "BiasAdd", t + 10 + k * 500, 500);
  }
  return "{\"traceEvents\":[" + ev.substr(1) + "]}";
}

TEST(Tf1Runs, MergedRunsAreTheStepsBothSides) {
  Trace t = testing::ImportChrome(MergedRuns(4, 4000));
  const WorkerId w = PrimaryWorker(t);
  ASSERT_TRUE(t.worker(w).tf1_session);
  EXPECT_EQ(Tf1RunStarts(t, w).size(), 4u);
  StepWindows s = TraceToSteps(t, w);
  ASSERT_EQ(s.steps.size(), 3u) << s.source;  // the last run's next start is not in the file
  EXPECT_EQ(s.excluded_partial, 1);
  EXPECT_TRUE(s.inferred);
  EXPECT_FALSE(s.whole_window);
  EXPECT_NE(s.source.find("4 sess.run calls"), std::string::npos) << s.source;
  EXPECT_EQ(s.steps[1].end_ns - s.steps[1].start_ns, int64_t((10 + 30 * 500 + 4000) * 1000));
  // Inside one op that spans them all, the _SOURCE ops are a function's executors: one run.
  Trace inner = testing::ImportChrome(MergedRuns(4, 4000, true));
  EXPECT_TRUE(Tf1RunStarts(inner, PrimaryWorker(inner)).empty());
  EXPECT_EQ(TraceToSteps(inner, PrimaryWorker(inner)).source.find("sess.run calls"), std::string::npos);
}

TEST(Tf1Runs, ARunsPartitionsStartTogetherAsOneRun) {
  Trace t = testing::ImportChrome(MergedRuns(3, 4000, false, true));
  EXPECT_EQ(Tf1RunStarts(t, PrimaryWorker(t)).size(), 3u);
}

// A partition's executor may start well into its run, between the other partition's ops (a
// GPU's _SOURCE 1.5 ms after the CPU's): another device's _SOURCE never opens a run; the same
// device's next one does.
TEST(Tf1Runs, ALatePartitionIsItsRunsNotANewOne) {
  Trace one = testing::ImportChrome(MergedRuns(1, 4000, false, true, 1'510));
  EXPECT_TRUE(Tf1RunStarts(one, PrimaryWorker(one)).empty());  // one run: no merged runs
  const StepWindows w = TraceToSteps(one, PrimaryWorker(one));
  ASSERT_EQ(w.steps.size(), 1u) << w.source;
  EXPECT_GE(w.steps[0].dur_ns(), 15'000'000);
  Trace three = testing::ImportChrome(MergedRuns(3, 4000, false, true, 1'510));
  EXPECT_EQ(Tf1RunStarts(three, PrimaryWorker(three)).size(), 3u);
}

TEST(Tf1Runs, ComputeBoundSaysWhereHostTimeHasNothingRecordedBothSides) {
  auto gain = [](double gap_us) {
    Report r = AnalyzeTrace(testing::ImportChrome(MergedRuns(5, gap_us)));
    const Finding* f = testing::FindFinding(r, "compute_bound");
    return f ? f->gain_text : std::string("(no compute_bound) ") + r.verdict.summary;
  };
  // 4 ms of 19 ms (21%) between runs: said; 1.2 ms of 16.2 ms (7%): under kUntracedNotePct.
  EXPECT_NE(gain(4000).find("host time with nothing recorded"), std::string::npos) << gain(4000);
  EXPECT_NE(gain(1200).find("no idle time to recover"), std::string::npos) << gain(1200);
}

// The first run's _SOURCE holds the GPU's op lane `source_ms` while the device idles: past
// kOneOffRuntimeNs that is set-up, however often NoOp recurs; so is one over kSlowRunStartNs
// that no later run repeats (SlowRunStarts); under that, the executor's.
TEST(Tf1Runs, ALongBookkeepingOpOnAGpuLaneIsSetupBothSides) {
  auto startup_ms = [](double source_ms) {
    std::string ev = Tf1Lane(1, kCpu) + Tf1Lane(2, kGpuOps) + Tf1Lane(3, "/device:GPU:0/stream:all Compute") +
                     Tf1Lane(4, "/device:GPU:0/stream:13 Compute");
    ev += Tf1Node(1, "NoOp", "_SOURCE", 1, 10);
    ev += Tf1Node(2, "NoOp", "_SOURCE", 1, source_ms * 1000);
    double t = 2 + source_ms * 1000;
    for (int k = 0; k < 20; ++k, t += 100) {
      ev += Tf1Op(2, "MatMul", t, 90);
      ev += Tf1Op(3, "MatMul", t + 80, 10);
      ev += Tf1Op(4, "MatMul", t + 80, 10);
    }
    ev += Tf1Node(2, "NoOp", "_SINK", t, 5);
    Trace tr = testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}");
    const WorkerId w = PrimaryWorker(tr);
    return TraceToStepSignals(tr, w, TraceToSteps(tr, w)).startup_ms;
  };
  const double limit_ms = kOneOffRuntimeNs / 1e6;
  EXPECT_GT(startup_ms(limit_ms + 1), limit_ms);
  EXPECT_GT(startup_ms(limit_ms - 1), limit_ms - 2);
  EXPECT_LT(startup_ms(kSlowRunStartNs / 1e6 * 0.8), 0.01);
}

// Tensors fed by feed_dict enter each run as `_Arg` ops named `_arg_<feed>_0_<n>`: the report says
// the feed is built outside the trace, naming each feed once. Without them, or where the trace is
// no TF1 session, nothing is said.
TEST(Tf1Runs, FeedDictInputIsNamedBothSides) {
  auto with_feeds = [](const std::string& base) {
    std::string ev = base.substr(0, base.size() - 2);  // drop "]}"
    for (int r = 0; r < 4; ++r) {
      const double t = 2 + r * (10 + 30 * 500 + 4000.0);
      ev += Tf1Node(1, "_Arg", "_arg_Placeholder_0_0", t, 3);
      ev += Tf1Node(1, "_Arg", "_arg_labels_0_1", t + 3, 3);
    }
    return ev + "]}";
  };
  auto note = [](const Report& r) {
    for (const auto& n : r.notes)
      if (n.find("feed_dict") != std::string::npos) return n;
    return std::string();
  };
  Trace fed = testing::ImportChrome(with_feeds(MergedRuns(4, 4000)));
  const std::string n = note(AnalyzeTrace(fed));
  EXPECT_NE(n.find("2 tensors fed: Placeholder, labels"), std::string::npos) << n;
  EXPECT_EQ(note(AnalyzeTrace(testing::ImportChrome(MergedRuns(4, 4000)))), "");
  // The same `_Arg` ops in a trace that is no TF1 session (a function's arguments): no note.
  std::string ev;
  for (int i = 0; i < 4; ++i) ev += testing::X("cpu_op", "_Arg", 1, 1, i * 1000.0, 10, "{\"name\":\"_arg_x_0_0\"}");
  Trace other = testing::ImportChrome(testing::Doc(ev));
  EXPECT_FALSE(other.worker(PrimaryWorker(other)).tf1_session);
  EXPECT_EQ(Tf1FeedNote(other, PrimaryWorker(other)), "");
}

// Releases before TF 1.2 rewrote each feed into a receive `_recv_<feed>_0`; a timeline shows it as
// the name of the host-to-device copy of its output (`edge_<N>__recv_<feed>_0`) or of the receive
// itself. Receives between partitions (`<node>/_<N>`) and other edges' copies are no feed.
TEST(Tf1Runs, OlderReleasesFeedsAreNamedBothSides) {
  auto with = [](const std::vector<std::string>& nodes) {
    const std::string base = MergedRuns(4, 4000);
    std::string ev = base.substr(0, base.size() - 2);  // drop "]}"
    for (int r = 0; r < 4; ++r)
      for (size_t k = 0; k < nodes.size(); ++k)
        ev += Tf1Node(1, "MEMCPYHtoD", nodes[k].c_str(), 2 + r * (10 + 30 * 500 + 4000.0) + 3.0 * k, 3);
    Trace tr = testing::ImportChrome(ev + "]}");
    return Tf1FeedNote(tr, PrimaryWorker(tr));
  };
  const std::string n = with({"edge_132__recv_Placeholder_6_0", "_recv_Placeholder_7_0", "edge_133__recv_Placeholder_6_0"});
  EXPECT_NE(n.find("2 tensors fed: Placeholder_6, Placeholder_7"), std::string::npos) << n;
  EXPECT_EQ(with({"_recv_Placeholder_7_0/_5", "edge_12_MatMul", "edge_x__recv_a_0", "Placeholder_recv_0"}), "");
}

// One TF1 run that copies `nodes` to the GPU (25, 12 and 3 ms) while its kernels compute 1 ms; the
// CPU first runs a Dequantize named after each (with `made_on_cpu`). Copies of variable reads
// (`edge_<N>_<var>/read`) are the model's weights, re-sent each run: the advice is to keep them on
// the device and make them once; copies of other tensors keep the generic copy advice.
Report WeightCopyRun(const std::vector<std::string>& nodes, bool made_on_cpu) {
  constexpr const char* kMemcpy = "/device:GPU:0/memcpy Compute";
  constexpr const char* kStream = "/device:GPU:0/stream:15 Compute";
  std::string ev = Tf1Lane(1, kCpu) + Tf1Lane(2, kGpuOps) + Tf1Lane(3, kMemcpy) + Tf1Lane(4, kStream);
  ev += Tf1Node(1, "NoOp", "_SOURCE", 0, 10);
  ev += Tf1Node(2, "NoOp", "_SOURCE", 5, 3);
  const double copy_us[] = {25000, 12000, 3000};
  double t = 20;
  for (size_t k = 0; k < nodes.size(); ++k) {
    std::string var = nodes[k].substr(nodes[k].find('_', 5) + 1);
    var = var.substr(0, var.rfind("/read"));
    if (made_on_cpu) ev += Tf1Node(1, "Dequantize", var.c_str(), t, 6000), t += 6000;
  }
  for (size_t k = 0; k < nodes.size(); ++k) {
    ev += Tf1Node(3, "MEMCPYHtoD", nodes[k].c_str(), t, copy_us[k]);  // TF1 writes each copy on both lanes
    ev += Tf1Node(4, "MEMCPYHtoD", nodes[k].c_str(), t, copy_us[k]);
    t += copy_us[k] + 10;
  }
  ev += Tf1Node(4, "MatMul", "fc6/MatMul", t, 1000);
  ev += Tf1Node(2, "MatMul", "fc6/MatMul", t - 5, 1010);
  return AnalyzeTrace(testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}"));
}

TEST(Tf1Runs, WeightsCopiedEachRunBothSides) {
  const std::vector<std::string> weights = {"edge_39_fc6/weights/read", "edge_41_fc7/weights/read",
                                            "edge_43_fc8/weights/read"};
  Report r = WeightCopyRun(weights, true);
  const Finding* c = testing::FindFinding(r, "copy_bound");
  ASSERT_NE(c, nullptr) << r.verdict.summary;
  EXPECT_NE(c->title.find("the model's weights are copied to the device in every run"), std::string::npos) << c->title;
  EXPECT_NE(testing::EvidenceText(*c).find("(fc6/weights, fc7/weights, fc8/weights)"), std::string::npos)
      << testing::EvidenceText(*c);
  EXPECT_NE(c->fix.tensorflow.find("tf.device('/gpu:0')"), std::string::npos);
  EXPECT_EQ(c->fix.tensorflow.find("prefetch_to_device"), std::string::npos);
  // Copies holding most of the run lead the verdict over the CPU's share.
  EXPECT_EQ(r.verdict.summary.rfind("copy-bound: ", 0), 0u) << r.verdict.summary;
  EXPECT_EQ(r.findings[0].id, "copy_bound");
  if (const Finding* h = testing::FindFinding(r, "host_bound"))
    EXPECT_NE(h->fix.summary.find("remakes the model's weights"), std::string::npos) << h->fix.summary;

  // The same copies of activations (no variable read): the generic advice.
  Report other = WeightCopyRun({"edge_39_conv1/Relu", "edge_41_conv2/Relu", "edge_43_pool/MaxPool"}, false);
  const Finding* g = testing::FindFinding(other, "copy_bound");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->title.find("weights"), std::string::npos) << g->title;
  EXPECT_NE(g->fix.tensorflow.find("prefetch_to_device"), std::string::npos);
}

// A TF1 run executes each node once, and its events are named by op type: layers of one type
// differ in shape, so the largest ExtractImagePatches (layers 1 and 2, 7.6 and 3.1 ms, against
// 0.3 ms and less for layers 3-7) are not a warm-up of the smaller ones after them. Compared node by node, a single run has no start-up; a timeline of
// several runs whose first run's layer-1 node took 70 ms and the later ones 2 ms does.
TEST(Tf1Runs, FirstCallsAreComparedNodeByNodeBothSides) {
  auto startup_ms = [](int runs, bool warm_second) {
    std::string ev = Tf1Lane(1, kCpu);
    double t = 1;
    for (int r = 0; r < runs; ++r) {
      ev += Tf1Node(1, "NoOp", "_SOURCE", t, 10);
      t += 20;
      // Per layer, as an LCNN's patches shrink (the first warm variant: layer 1 at 70 ms).
      const double sizes_ms[] = {warm_second ? 70 : 7.557, 3.131, 0.287, 0.387, 0.319, 0.127, 0.006};
      for (int l = 0; l < 7; ++l) {
        const std::string node = "layer" + std::to_string(l + 1) + "/ExtractImagePatches";
        const double ms = (r > 0 && warm_second && l == 0) ? 2 : sizes_ms[l];
        ev += Tf1Node(1, "ExtractImagePatches", node.c_str(), t, ms * 1000);
        t += ms * 1000 + 5;
        ev += Tf1Node(1, "MatMul", ("layer" + std::to_string(l + 1) + "/MatMul").c_str(), t, 500);
        t += 505;
      }
      t += 200;
    }
    Trace tr = testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}");
    const WorkerId w = PrimaryWorker(tr);
    return TraceToStepSignals(tr, w, TraceToSteps(tr, w)).startup_ms;
  };
  EXPECT_LT(startup_ms(1, false), 0.01);
  // Three runs (the last, with no next run to end it, is left out of the steps): the same sizes
  // each run warm nothing up; a layer-1 node at 70 ms and then 2 ms did, once (35 ms per step).
  EXPECT_LT(startup_ms(3, false), 0.01);
  EXPECT_NEAR(startup_ms(3, true), 70.0 / 2, 1.0);
}

}  // namespace
}  // namespace stepdoctor
