#include "stepdoctor/importers/xplane/xspace_to_trace.h"

#include <gtest/gtest.h>

#include <map>

#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"
#include "xplane/xplane_builder.h"

namespace stepdoctor {
namespace {

using testing::RefValue;
using testing::XSpaceBuilder;

Trace ImportBytes(const std::string& bytes, Status* st = nullptr, const std::string& name = "host1.xplane.pb") {
  Trace t;
  auto src = MemorySource(bytes, name);
  Status s = ImportXSpace(*src, t);
  if (st) *st = s;
  else EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

Trace ImportFile(const std::string& path) {
  auto r = ImportPaths({path});
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? std::move(r->trace) : Trace();
}

const Timeline* FindTimeline(const Trace& t, DeviceKind dk, int index, std::string_view name) {
  for (const auto& tl : t.timelines) {
    const Device& d = t.device(tl.device);
    if (d.kind == dk && d.index == index && tl.name == name) return &tl;
  }
  return nullptr;
}

size_t DeviceEvents(const Trace& t, DeviceKind dk, int index) {
  size_t n = 0;
  for (const auto& tl : t.timelines)
    if (t.device(tl.device).kind == dk && t.device(tl.device).index == index) n += tl.ev.size();
  return n;
}

size_t CountKind(const Trace& t, EventKind k, DeviceKind dk) {
  size_t n = 0;
  for (const auto& tl : t.timelines)
    if (t.device(tl.device).kind == dk)
      for (EventKind x : tl.ev.kind) n += x == k;
  return n;
}

const Device* FindDevice(const Trace& t, DeviceKind dk, int index) {
  for (const auto& d : t.devices)
    if (d.kind == dk && d.index == index) return &d;
  return nullptr;
}

std::string ArgString(const Trace& t, const Timeline& tl, uint32_t i, std::string_view key) {
  bool found = false;
  StringId k = t.strings.Find(key, &found);
  const Arg* a = found ? tl.FindArg(i, k) : nullptr;
  return a && a->type == ArgType::kString ? std::string(t.str(a->s)) : std::string();
}
int64_t ArgInt(const Trace& t, const Timeline& tl, uint32_t i, std::string_view key, int64_t dflt = -1) {
  bool found = false;
  StringId k = t.strings.Find(key, &found);
  const Arg* a = found ? tl.FindArg(i, k) : nullptr;
  return a && a->type == ArgType::kInt ? a->i : dflt;
}

// A small TF GPU profile: one host thread launching a kernel, one stream, the derived lines.
std::string SmallGpuSpace() {
  XSpaceBuilder b;
  b.Hostname("worker-0");
  auto& host = b.AddPlane("/host:CPU");
  auto th = host.AddLine(7, "tf_Compute/7", 1000);
  th.Event("model/dense/MatMul:MatMul", 100, 50, {{"is_eager", int64_t(0)}, {"group_id", int64_t(3)}});
  th.Event("void gemm_kernel<float>()", 110, 5, {{"correlation_id", uint64_t(42)}});
  th.Event("cuLaunchKernel", 120, 4);
  th.Event("IteratorGetNext:IteratorGetNext", 10, 80);
  th.Event("IteratorGetNext/_5:_Recv", 95, 2);
  th.Event("Iterator::Model::Prefetch", 12, 70, {{"id", int64_t(11)}, {"parent_id", int64_t(0)}});
  th.Event("MemoryAllocation", 130, 0,
           {{"bytes_allocated", int64_t(1000)}, {"allocator_name", std::string("GPU_0_bfc")},
            {"peak_bytes_in_use", int64_t(5000)}});
  th.Event("allreduce/CollectiveReduce:CollectiveReduce", 200, 30);
  auto& gpu = b.AddPlane("/device:GPU:0");
  gpu.Stat("core_count", int64_t(80)).Stat("memory_size", uint64_t(16ull << 30));
  gpu.Stat("compute_cap_major", int64_t(7)).Stat("compute_cap_minor", int64_t(0));
  gpu.StatId("Tesla V100");  // a stat-metadata name a ref can point at
  auto s = gpu.AddLine(1, "Stream #1(Compute)", 2000);
  s.Event("void gemm_kernel<float>()", 0, 3, {{"correlation_id", uint64_t(42)}, {"kernel_details", RefValue{"Tesla V100"}}});
  s.Event("ncclKernel_AllReduce_RING_LL_Sum_float", 10, 20);
  s.Event("MemcpyH2D", 40, 2, {{"memcpy_details", std::string("size:4 dest:0 async:1")}});
  s.Event("CopyDeviceToDevice", 50, 1, {{"memcpy_details", std::string("size:4")}});
  auto steps = gpu.AddLine(-3, "Steps", 2000);
  steps.Event("17", 0, 100, {{"group_id", int64_t(3)}});
  gpu.AddLine(-1, "TensorFlow Ops", 2000).Event("model/dense/MatMul:MatMul", 0, 3);
  gpu.AddLine(-2, "TensorFlow Name Scope", 2000).Event("dense", 0, 3);
  b.AddPlane("/host:metadata");
  return b.Serialize();
}

TEST(XplaneImport, MapsPlanesLinesAndEvents) {
  Trace t = ImportBytes(SmallGpuSpace());
  EXPECT_EQ(t.format, "xplane (tensorflow)");
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].hostname, "worker-0");
  const Device* gpu = FindDevice(t, DeviceKind::kGpu, 0);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->sm_count, 80);
  EXPECT_EQ(gpu->memory_bytes, int64_t(16) << 30);
  EXPECT_EQ(gpu->compute_major, 7);
  EXPECT_EQ(gpu->vendor, "nvidia");

  const Timeline* th = FindTimeline(t, DeviceKind::kHostCpu, 0, "tf_Compute/7");
  ASSERT_NE(th, nullptr);
  EXPECT_EQ(th->kind, TimelineKind::kHostThread);
  std::map<std::string, EventKind> kinds;
  for (uint32_t i = 0; i < th->ev.size(); ++i) kinds[std::string(t.str(th->ev.name[i]))] = th->ev.kind[i];
  EXPECT_EQ(kinds["model/dense/MatMul:MatMul"], EventKind::kFrameworkOp);
  EXPECT_EQ(kinds["void gemm_kernel<float>()"], EventKind::kRuntime);  // host side of a launch
  EXPECT_EQ(kinds["cuLaunchKernel"], EventKind::kRuntime);
  EXPECT_EQ(kinds["IteratorGetNext:IteratorGetNext"], EventKind::kInputWait);
  EXPECT_EQ(kinds["IteratorGetNext/_5:_Recv"], EventKind::kFrameworkOp);
  EXPECT_EQ(kinds["Iterator::Model::Prefetch"], EventKind::kOther);
  EXPECT_EQ(kinds["MemoryAllocation"], EventKind::kMemoryEvent);
  EXPECT_EQ(kinds["allreduce/CollectiveReduce:CollectiveReduce"], EventKind::kCollective);

  // Times: line timestamp_ns + offset_ps / 1000; sorted after Finalize.
  EXPECT_EQ(th->ev.start_ns[0], 1010);
  for (uint32_t i = 0; i < th->ev.size(); ++i) {
    std::string_view n = t.str(th->ev.name[i]);
    if (n == "model/dense/MatMul:MatMul") {
      EXPECT_EQ(th->ev.start_ns[i], 1100);
      EXPECT_EQ(th->ev.dur_ns[i], 50);
      EXPECT_EQ(ArgInt(t, *th, i, "is_eager"), 0);
      EXPECT_EQ(ArgInt(t, *th, i, "group_id"), 3);
    }
    if (n == "void gemm_kernel<float>()") {
      EXPECT_EQ(th->ev.corr[i], 42);
    }
    if (n == "Iterator::Model::Prefetch") {
      EXPECT_EQ(ArgInt(t, *th, i, "id"), 11);
    }
    if (n == "model/dense/MatMul:MatMul") {
      EXPECT_EQ(ArgInt(t, *th, i, "id"), -1);  // "id" kept on iterators only
    }
  }

  const Timeline* s = FindTimeline(t, DeviceKind::kGpu, 0, "Stream #1(Compute)");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->kind, TimelineKind::kDeviceStream);
  ASSERT_EQ(s->ev.size(), 4u);
  EXPECT_EQ(s->ev.kind[0], EventKind::kKernel);
  EXPECT_EQ(s->ev.corr[0], 42);
  EXPECT_EQ(ArgString(t, *s, 0, "kernel_details"), "Tesla V100");  // a ref resolves to its name
  EXPECT_EQ(s->ev.kind[1], EventKind::kCollective);
  EXPECT_EQ(s->ev.kind[2], EventKind::kMemcpyH2D);
  EXPECT_EQ(s->ev.kind[3], EventKind::kMemcpyD2D);

  const Timeline* steps = FindTimeline(t, DeviceKind::kGpu, 0, "Steps");
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->kind, TimelineKind::kDerived);
  EXPECT_EQ(steps->ev.kind[0], EventKind::kStepMarker);
  EXPECT_EQ(ArgInt(t, *steps, 0, "step_num"), 17);
  const Timeline* ops = FindTimeline(t, DeviceKind::kGpu, 0, "TensorFlow Ops");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->ev.kind[0], EventKind::kFrameworkOp);
  EXPECT_EQ(ops->kind, TimelineKind::kDerived);

  // Allocator events become a memory counter on the allocator's device.
  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].name, "memory in use (GPU_0_bfc)");
  EXPECT_EQ(t.device(t.counters[0].device).kind, DeviceKind::kGpu);
  EXPECT_EQ(t.counters[0].value[0], 1000);
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(XplaneImport, HostnameFallsBackToFileStem) {
  XSpaceBuilder b;
  b.AddPlane("/host:CPU").AddLine(1, "main").Event("f", 0, 1);
  Trace t = ImportBytes(b.Serialize(), nullptr, "/logs/plugins/profile/r/myhost.xspace.pb");
  EXPECT_EQ(t.workers[0].hostname, "myhost");
}

TEST(XplaneImport, TpuOpsLineIsTheDeviceActivity) {
  XSpaceBuilder b;
  auto& tpu = b.AddPlane("/device:TPU:2");
  tpu.Stat("device_type_string", std::string("TPU v4"));
  tpu.MetadataStat("%all-reduce.1 = f32[8] all-reduce(x)", "hlo_category", std::string("all-reduce"));
  tpu.MetadataStat("%fusion.3 = f32[8] fusion(x)", "hlo_category", std::string("non-fusion elementwise"));
  auto ops = tpu.AddLine(3, "XLA Ops");
  ops.Event("%fusion.3 = f32[8] fusion(x)", 0, 10);
  ops.Event("%all-reduce.1 = f32[8] all-reduce(x)", 20, 10);
  tpu.AddLine(2, "XLA Modules").Event("jit_train_step(123)", 0, 40);
  Trace t = ImportBytes(b.Serialize());
  const Timeline* l = FindTimeline(t, DeviceKind::kTpu, 2, "XLA Ops");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->kind, TimelineKind::kDeviceStream);
  EXPECT_EQ(l->ev.kind[0], EventKind::kKernel);
  EXPECT_EQ(l->ev.kind[1], EventKind::kCollective);
  EXPECT_EQ(ArgString(t, *l, 1, "hlo_category"), "all-reduce");  // metadata stats reach the event
  const Timeline* m = FindTimeline(t, DeviceKind::kTpu, 2, "XLA Modules");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, TimelineKind::kDerived);
  EXPECT_EQ(FindDevice(t, DeviceKind::kTpu, 2)->vendor, "google");
  EXPECT_EQ(FindDevice(t, DeviceKind::kTpu, 2)->name, "/device:TPU:2 (TPU v4)");
}

TEST(XplaneImport, AggregatedEventsAndUnknownMetadataAreCounted) {
  XSpaceBuilder b;
  auto& host = b.AddPlane("/host:CPU");
  auto line = host.AddLine(1, "main");
  line.Event("f", 0, 1);
  line.Event("g", 0, 1)->set_num_occurrences(5);
  line.proto()->add_events()->set_metadata_id(999);
  Trace t = ImportBytes(b.Serialize());
  EXPECT_EQ(t.EventCount(), 2u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kUnsupportedContent), 1u);
  // Kept under its id, and counted as what it is: not a JSON problem.
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kXPlaneMissingMetadata), 1u);
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 0u);
}

TEST(XplaneImport, TruncatedFileKeepsWholePlanes) {
  XSpaceBuilder b;
  b.AddPlane("/host:CPU").AddLine(1, "main").Event("f", 0, 1);
  auto& gpu = b.AddPlane("/device:GPU:0");
  auto s = gpu.AddLine(1, "Stream #1(Compute)");
  for (int i = 0; i < 100; ++i) s.Event("k", i * 10, 5);
  std::string bytes = b.Serialize();
  Status st;
  Trace t = ImportBytes(bytes.substr(0, bytes.size() - 50), &st);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(t.EventCount(), 1u);  // the host plane; the cut GPU plane is dropped
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);

  // Cut inside the first plane: nothing to keep, a one-line error.
  Trace t2 = ImportBytes(bytes.substr(0, 5), &st);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kCorruptInput);
}

TEST(XplaneImport, GarbageNeverCrashes) {
  std::string good = SmallGpuSpace();
  Status st;
  Trace t = ImportBytes(std::string("\x0a\xff\xff\xff\xff\x0f garbage", 14), &st);
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(st.message().empty());
  ImportBytes(std::string(1, '\x07'), &st);
  EXPECT_FALSE(st.ok());
  // Flip bytes all over a valid profile: each import either fails cleanly or notes problems.
  uint32_t seed = 12345;
  for (int round = 0; round < 300; ++round) {
    std::string bad = good;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 1664525u + 1013904223u;
      bad[seed % bad.size()] = static_cast<char>(seed >> 24);
    }
    Trace tb = ImportBytes(bad, &st);
    if (st.ok()) {
      EXPECT_LE(tb.EventCount(), 1000u);
    }
  }
}

TEST(XplaneCorpus, MultiWorkerBert) {
  SD_CORPUS_OR_SKIP(path, "tf-profiler-demo/plugins/profile/GPU-multi-worker/34.83.195.179_6003.xplane.pb");
  Trace t = ImportFile(path);
  EXPECT_EQ(t.format, "xplane (tensorflow)");
  ASSERT_EQ(t.workers.size(), 1u);
  EXPECT_EQ(t.workers[0].hostname, "34.83.195.179:6003");
  EXPECT_EQ(t.devices.size(), 9u);  // the host and GPU:0..7
  EXPECT_EQ(t.EventCount(), 23128u);
  EXPECT_EQ(DeviceEvents(t, DeviceKind::kGpu, 4), 3875u);
  EXPECT_EQ(DeviceEvents(t, DeviceKind::kGpu, 6), 3880u);
  EXPECT_EQ(DeviceEvents(t, DeviceKind::kHostCpu, 0), 15354u);
  size_t host_lines = 0;
  for (const auto& tl : t.timelines) host_lines += t.device(tl.device).kind == DeviceKind::kHostCpu;
  EXPECT_EQ(host_lines, 22u);
  const Device* g4 = FindDevice(t, DeviceKind::kGpu, 4);
  ASSERT_NE(g4, nullptr);
  EXPECT_EQ(g4->sm_count, 80);
  EXPECT_EQ(g4->memory_bytes, 16945512448);
  EXPECT_EQ(g4->compute_major, 7);
  const Timeline* compute = FindTimeline(t, DeviceKind::kGpu, 4, "Stream #134(Compute)");
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->ev.size(), 665u);
  const Timeline* steps = FindTimeline(t, DeviceKind::kGpu, 4, "Steps");
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->ev.kind[0], EventKind::kStepMarker);
  EXPECT_EQ(steps->ev.dur_ns[0], 19865491);
  // CollectiveReduce on the host, tf.data Prefetch iterators, allocator counters.
  EXPECT_EQ(CountKind(t, EventKind::kCollective, DeviceKind::kHostCpu), 1u);
  size_t prefetch = 0;
  for (const auto& tl : t.timelines)
    for (StringId n : tl.ev.name) prefetch += t.str(n).rfind("Iterator::Prefetch", 0) == 0;
  EXPECT_EQ(prefetch, 4u);
  EXPECT_EQ(CountKind(t, EventKind::kRuntime, DeviceKind::kHostCpu), 1556u);
  EXPECT_EQ(t.counters.size(), 4u);
}

TEST(XplaneCorpus, JaxTpuInference) {
  SD_CORPUS_OR_SKIP(path, "xprof-testdata/test_xplanes/tpu_inference_2.xplane.pb");
  Trace t = ImportFile(path);
  EXPECT_EQ(t.format, "xplane (jax)");
  EXPECT_EQ(t.workers[0].hostname, "tpu_inference_2");
  EXPECT_EQ(t.EventCount(), 26723u);
  for (int i = 0; i < 4; ++i) {
    const Timeline* ops = FindTimeline(t, DeviceKind::kTpu, i, "XLA Ops");
    ASSERT_NE(ops, nullptr) << i;
    EXPECT_EQ(ops->kind, TimelineKind::kDeviceStream);
    EXPECT_EQ(ops->ev.size(), i == 0 ? 1504u : 1503u);
    EXPECT_EQ(FindDevice(t, DeviceKind::kTpu, i)->name, "/device:TPU:" + std::to_string(i) + " (TPU v6 Lite)");
  }
  EXPECT_EQ(CountKind(t, EventKind::kCollective, DeviceKind::kTpu), 12u);  // the psum all-reduces
}

TEST(XplaneCorpus, JaxAmdMi300) {
  SD_CORPUS_OR_SKIP(path, "tracelens-testdata/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
  Trace t = ImportFile(path);
  EXPECT_EQ(t.format, "xplane (jax)");
  EXPECT_EQ(t.workers[0].hostname, "chi-mi300x-013.ord.vultr.cpe.ice.amd.com");
  EXPECT_EQ(t.EventCount(), 6024u);
  EXPECT_EQ(DeviceEvents(t, DeviceKind::kGpu, 0), 53u);
  EXPECT_EQ(DeviceEvents(t, DeviceKind::kGpu, 7), 25u);
  EXPECT_EQ(CountKind(t, EventKind::kMemcpyD2D, DeviceKind::kGpu), 53u);
  EXPECT_EQ(CountKind(t, EventKind::kKernel, DeviceKind::kGpu), 25u);
  const Device* g7 = FindDevice(t, DeviceKind::kGpu, 7);
  ASSERT_NE(g7, nullptr);
  EXPECT_EQ(g7->vendor, "amd");
  EXPECT_EQ(g7->sm_count, 304);
  EXPECT_EQ(g7->memory_bytes, 206141652992);
}

TEST(XplaneCorpus, TruncatedCorpusFileIsPartial) {
  SD_CORPUS_OR_SKIP(path, "tf-profiler-demo/plugins/profile/GPU-multi-worker/34.83.195.179_6003.xplane.pb");
  std::string bytes = testing::ReadFileOrDie(path);
  Status st;
  Trace t = ImportBytes(bytes.substr(0, bytes.size() * 9 / 10), &st);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GT(t.EventCount(), 10000u);  // the host plane, before the cut
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kTruncatedInput), 1u);
}

}  // namespace
}  // namespace stepdoctor
