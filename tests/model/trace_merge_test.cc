// MergeTrace: how files imported on separate threads become one Trace. Ids are renumbered,
// names re-interned, and nothing of either side is lost.
#include "stepdoctor/model/trace_merge.h"

#include <gtest/gtest.h>

namespace stepdoctor {
namespace {

// One worker with a host thread (one event carrying a string arg) and a GPU stream, and a
// GPU counter; `tag` makes its names differ from another such trace's.
Trace OneFile(const std::string& host, const std::string& tag, const std::string& format) {
  Trace t;
  Worker w;
  w.hostname = host;
  WorkerId wid = t.AddWorker(w);
  DeviceId cpu = t.GetOrAddDevice(wid, DeviceKind::kHostCpu, 0);
  DeviceId gpu = t.GetOrAddDevice(wid, DeviceKind::kGpu, 0, "GPU 0");
  // Interned in a different order on each side, so the same id means different names.
  t.strings.Intern("only in " + tag);
  Timeline& h = t.timeline(t.AddTimeline(wid, cpu, TimelineKind::kHostThread, 1, "thread 1"));
  uint32_t e = h.Add(0, 100, t.strings.Intern("step " + tag), EventKind::kStepMarker);
  h.AddArg(e, Arg{t.strings.Intern("phase"), ArgType::kString, 0, 0, t.strings.Intern("train " + tag)});
  Timeline& s = t.timeline(t.AddTimeline(wid, gpu, TimelineKind::kDeviceStream, 7, "stream 7"));
  s.Add(10, 50, t.strings.Intern("gemm"), EventKind::kKernel, 42);
  CounterSeries c;
  c.worker = wid;
  c.device = gpu;
  c.name = "gpu0_util_pct";
  c.ts_ns = {0, 1000};
  c.value = {50, 60};
  t.counters.push_back(c);
  t.diagnostics.Count(ImportIssue::kNegativeDuration);
  t.sources.push_back(host + ".json");
  t.format = format;
  t.Finalize();
  return t;
}

TEST(TraceMerge, RenumbersIdsAndReinternsNames) {
  Trace into = OneFile("a", "a", "chrome-json (kineto)");
  Trace from = OneFile("b", "b", "xplane");
  MergeTrace(into, std::move(from));

  ASSERT_EQ(into.workers.size(), 2u);
  EXPECT_EQ(into.workers[1].hostname, "b");
  ASSERT_EQ(into.devices.size(), 4u);
  EXPECT_EQ(into.devices[2].worker.v, 1u);
  EXPECT_EQ(into.devices[3].worker.v, 1u);
  ASSERT_EQ(into.timelines.size(), 4u);
  const Timeline& host_b = into.timelines[2];
  const Timeline& stream_b = into.timelines[3];
  EXPECT_EQ(host_b.worker.v, 1u);
  EXPECT_EQ(into.device(host_b.device).kind, DeviceKind::kHostCpu);
  EXPECT_EQ(into.device(stream_b.device).kind, DeviceKind::kGpu);
  EXPECT_EQ(into.device(stream_b.device).worker.v, 1u);
  // Names and string args read the same through the merged pool.
  EXPECT_EQ(into.str(host_b.ev.name[0]), "step b");
  const Arg* phase = host_b.FindArg(0, into.strings.Find("phase"));
  ASSERT_NE(phase, nullptr);
  EXPECT_EQ(into.str(phase->s), "train b");
  EXPECT_EQ(into.str(into.timelines[0].ev.name[0]), "step a");  // the first side untouched
  // A name both sides hold is one id.
  EXPECT_EQ(stream_b.ev.name[0], into.timelines[1].ev.name[0]);
  EXPECT_EQ(stream_b.ev.corr[0], 42);
  ASSERT_EQ(into.counters.size(), 2u);
  EXPECT_EQ(into.counters[1].worker.v, 1u);
  EXPECT_EQ(into.counters[1].device.v, stream_b.device.v);
  EXPECT_EQ(into.diagnostics.count(ImportIssue::kNegativeDuration), 2u);
  EXPECT_EQ(into.sources, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(into.format, "chrome-json (kineto) + xplane");
}

TEST(TraceMerge, FormatsJoinOnceAndEmptyFilesNameNone) {
  Trace into = OneFile("a", "a", "xplane");
  MergeTrace(into, OneFile("b", "b", "xplane"));
  EXPECT_EQ(into.format, "xplane");  // the same format is not repeated
  Trace empty;
  empty.format = "tfevents";
  empty.sources.push_back("events.out.tfevents.1.host.profile-empty");
  MergeTrace(into, std::move(empty));
  EXPECT_EQ(into.format, "xplane");  // a file with nothing to analyse names no format
  EXPECT_EQ(into.sources.size(), 3u);  // but is listed as read
}

TEST(TraceMerge, IntoAnEmptyTrace) {
  Trace into;
  MergeTrace(into, OneFile("b", "b", "xplane"));
  ASSERT_EQ(into.workers.size(), 1u);
  EXPECT_EQ(into.timelines[0].worker.v, 0u);
  EXPECT_EQ(into.str(into.timelines[0].ev.name[0]), "step b");
  EXPECT_EQ(into.format, "xplane");
}

}  // namespace
}  // namespace stepdoctor
