// W&B system metrics (wandb-events.jsonl) through the JSON-lines samples importer
// (importers/samples/wandb_events_to_trace.h): series and times, bad lines counted, the metric
// history refused, and the diagnosis the same as for a SageMaker log with the same figures.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/model/series_names.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::FindCounter;
using testing::ImportText;

constexpr int64_t kT0Ns = 1582070941000000000;  // _timestamp 1582070941

// Three samples 15 s apart from a 2-GPU machine, in the keys of an older client, with keys we
// do not read (system.disk, system.proc.memory.percent, _wandb) between them.
const char* kTwoGpus =
    R"({"system.gpu.0.gpu": 40.5, "system.gpu.0.memory": 12, "system.gpu.0.memoryAllocated": 30.5, "system.gpu.0.temp": 60, "system.gpu.0.powerWatts": 100, "system.gpu.0.powerPercent": 40, "system.gpu.1.gpu": 80, "system.gpu.1.memoryAllocatedBytes": 8589934592, "system.cpu": 25, "system.memory": 20, "system.proc.memory.availableMB": 8192, "system.proc.memory.rssMB": 1024, "system.proc.cpu.threads": 12, "system.network.sent": 1000, "system.disk": 49.0, "system.proc.memory.percent": 3.1, "_wandb": true, "_timestamp": 1582070941, "_runtime": 28})"
    "\n"
    R"({"system.gpu.0.gpu": 41, "system.gpu.1.gpu": 81, "system.cpu": 26, "system.network.sent": 31000, "_wandb": true, "_timestamp": 1582070956.5, "_runtime": 43.5})"
    "\n"
    R"({"_timestamp": 1582070971, "system.gpu.0.gpu": 42, "system.gpu.1.gpu": 82, "system.cpu": 27, "_runtime": 58, "_wandb": true})"
    "\n";

TEST(WandbEventsImport, TwoGpusLandInTheirSeriesAtTheirTimes) {
  Trace t;
  ASSERT_TRUE(ImportText(kTwoGpus, "wandb-events.jsonl", &t).ok());
  EXPECT_EQ(t.format, "wandb-system-metrics");
  const CounterSeries* g0 = FindCounter(t, "gpu0_util_pct");
  const CounterSeries* g1 = FindCounter(t, "gpu1_util_pct");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g0->ts_ns, (std::vector<int64_t>{kT0Ns, kT0Ns + 15500000000, kT0Ns + 30000000000}));
  EXPECT_EQ(g0->value, (std::vector<double>{40.5, 41, 42}));
  EXPECT_EQ(g1->value, (std::vector<double>{80, 81, 82}));
  EXPECT_NE(g0->device.v, g1->device.v);
  EXPECT_EQ(t.devices[g1->device.v].kind, DeviceKind::kGpu);
  EXPECT_EQ(t.devices[g1->device.v].index, 1);

  // One to one, as SageMaker's GPUMemoryUtilization: memoryAllocated is % of the GPU's memory.
  auto first = [&](const char* name) {
    const CounterSeries* c = FindCounter(t, name);
    return c && !c->value.empty() ? c->value[0] : -1.0;
  };
  EXPECT_EQ(first("gpu0_mem_used_pct"), 30.5);
  EXPECT_EQ(first("gpu0_mem_util_pct"), 12);
  EXPECT_EQ(first("gpu0_temp_celsius"), 60);
  EXPECT_EQ(first("gpu0_power_w"), 100);
  EXPECT_EQ(first("gpu0_power_limit_w"), 250);  // 100 W at 40% of the limit
  EXPECT_EQ(first("gpu1_mem_used_bytes"), 8589934592.0);
  EXPECT_EQ(FindCounter(t, "gpu1_mem_used_pct"), nullptr);

  // Host: the older clients' system.cpu is the machine's.
  const CounterSeries* cpu = FindCounter(t, std::string(series::kCpuPctTotal));
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->value, (std::vector<double>{25, 26, 27}));
  EXPECT_EQ(t.devices[cpu->device.v].kind, DeviceKind::kHostCpu);
  EXPECT_EQ(first("mem_available_bytes"), 8192.0 * 1048576);
  EXPECT_EQ(first("mem_total_bytes"), 10240.0 * 1048576);  // 8 GiB available at 20% used
  EXPECT_EQ(first("proc_rss_bytes"), 1024.0 * 1048576);
  EXPECT_EQ(first("proc_threads"), 12);
  EXPECT_EQ(first("net_tx_bytes_per_s"), 30000 / 15.5);  // cumulative bytes, differenced
  // system.disk is space in use, not how busy the disk is.
  EXPECT_EQ(FindCounter(t, "disk_util_pct"), nullptr);
  for (const auto& c : t.counters) EXPECT_EQ(c.name.find("disk"), std::string::npos) << c.name;
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(WandbEventsImport, NewerClientCpuIsTheProcessOverAllCores) {
  std::string text;
  for (int i = 0; i < 2; ++i)
    text += R"({"system.cpu": 12.5, "system.cpu.0.cpu_percent": 90, "system.cpu.1.cpu_percent": 10, "_timestamp": )" +
            std::to_string(1700000000 + 15 * i) + "}\n";
  Trace t;
  ASSERT_TRUE(ImportText(text, "wandb-events.jsonl", &t).ok());
  ASSERT_NE(FindCounter(t, "cpu_core0_pct"), nullptr);
  EXPECT_EQ(FindCounter(t, "cpu_core1_pct")->value[0], 10);
  EXPECT_EQ(FindCounter(t, std::string(series::kCpuPctTotal)), nullptr);
  ASSERT_NE(FindCounter(t, std::string(series::kProcCpuPct)), nullptr);
  EXPECT_EQ(FindCounter(t, std::string(series::kProcCpuPct))->value[0], 25);  // 12.5% of 2 cores
}

TEST(WandbEventsImport, RuntimeOnlyGivesTimesFromTheRunStartWithANote) {
  const char* text =
      R"({"system.gpu.0.gpu": 10, "_runtime": 30})"
      "\n"
      R"({"system.gpu.0.gpu": 11, "_runtime": 60, "_timestamp": 1582070941})"
      "\n"
      R"({"system.gpu.0.gpu": 12, "_runtime": 90.25})"
      "\n";
  Trace t;
  ASSERT_TRUE(ImportText(text, "wandb-events.jsonl", &t).ok());
  const CounterSeries* g0 = FindCounter(t, "gpu0_util_pct");
  ASSERT_NE(g0, nullptr);
  // Not mixed with the one wall-clock time that turns up later.
  EXPECT_EQ(g0->ts_ns, (std::vector<int64_t>{30000000000, 60000000000, 90250000000}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kAssumedTiming), 1u);
  ASSERT_FALSE(t.diagnostics.notes().empty());
  EXPECT_NE(t.diagnostics.notes()[0].second.find("_runtime"), std::string::npos);
  EXPECT_NE(t.diagnostics.notes()[0].second.find("wandb-events.jsonl"), std::string::npos);
}

TEST(WandbEventsImport, BadLinesAndValuesAreCountedNotFatal) {
  const char* text =
      R"({"system.gpu.0.gpu": 10, "system.cpu": 50, "_timestamp": 1582070941})"
      "\n"
      R"({"system.gpu.0.gpu": "n/a", "system.cpu": 51, "system.disk": "full", "_timestamp": 1582070971})"
      "\n"
      "not json at all\n"
      R"({"system.gpu.0.gpu": 12, "system.cpu": 52})"
      "\n"
      R"({"system.gpu.0.gpu": 13, "system.cpu": 53, "_timestamp": 1582071001})"
      "\n";
  Trace t;
  Status st = ImportText(text, "wandb-events.jsonl", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_NE(FindCounter(t, "gpu0_util_pct"), nullptr);
  EXPECT_EQ(FindCounter(t, "gpu0_util_pct")->value, (std::vector<double>{10, 13}));
  EXPECT_EQ(FindCounter(t, std::string(series::kCpuPctTotal))->value, (std::vector<double>{50, 51, 53}));
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMalformedEvent), 1u);   // the line that is not JSON
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kBadCounterValue), 1u);  // "n/a"; system.disk is not read
  EXPECT_EQ(t.diagnostics.count(ImportIssue::kMissingTimestamp), 1u);
}

TEST(WandbEventsImport, MetricHistoryIsRefusedInOneLine) {
  const char* text =
      R"({"_step": 0, "loss": 2.31, "lr": 0.001, "_runtime": 12.5, "_timestamp": 1582070941})"
      "\n"
      R"({"_step": 1, "loss": 2.12, "lr": 0.001, "_runtime": 13.1, "_timestamp": 1582070942})"
      "\n";
  Trace t;
  Status st = ImportText(text, "wandb-history.jsonl", &t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kUnknownFormat);
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  EXPECT_EQ(st.message().rfind("wandb-history.jsonl: ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find("W&B metric history"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not system metrics"), std::string::npos) << st.message();
}

// `n` samples 15 s apart of one GPU and the machine's CPU, in each dialect.
std::string WandbLog(int n, double gpu_pct, double cpu_pct) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += R"({"system.gpu.0.gpu": )" + std::to_string(gpu_pct) + R"(, "system.cpu": )" + std::to_string(cpu_pct) +
         R"(, "_wandb": true, "_timestamp": )" + std::to_string(1582070941 + 15 * i) + "}\n";
  return s;
}
std::string SageMakerLog(int n, double gpu_pct, double cpu_pct) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    std::string ts = std::to_string(1582070941 + 15 * i);
    s += R"({"Type":"gpu","Name":"gpu0","Dimension":"GPUUtilization","Value":)" + std::to_string(gpu_pct) +
         R"(,"Timestamp":)" + ts + "}\n";
    s += R"({"Type":"cpu","Name":"cpu","Dimension":"CPUUtilization","Value":)" + std::to_string(cpu_pct) +
         R"(,"Timestamp":)" + ts + "}\n";
  }
  return s;
}

struct Diagnosis {
  ResourceClass classification = ResourceClass::kUnknown;
  std::vector<std::string> finding_ids;
};
Diagnosis Diagnose(const std::string& text, const std::string& name) {
  Trace t;
  Status st = ImportText(text, name, &t);
  EXPECT_TRUE(st.ok()) << st.message();
  t.Finalize();
  Diagnosis d;
  if (auto r = ComputeResourceSignals(t)) d.classification = r->classification;
  for (const Finding& f : AnalyzeTrace(t).findings) d.finding_ids.push_back(f.id);
  return d;
}

// The W&B log and the SageMaker log of the same figures are classified and diagnosed alike.
void ExpectDiagnosedAsTheSameSageMakerLog(double gpu_pct, double cpu_pct, ResourceClass want) {
  Diagnosis wandb = Diagnose(WandbLog(20, gpu_pct, cpu_pct), "wandb-events.jsonl");
  Diagnosis sagemaker = Diagnose(SageMakerLog(20, gpu_pct, cpu_pct), "metrics.json");
  EXPECT_EQ(wandb.classification, want) << ResourceClassName(wandb.classification);
  EXPECT_EQ(wandb.classification, sagemaker.classification);
  ASSERT_FALSE(wandb.finding_ids.empty());
  EXPECT_EQ(wandb.finding_ids, sagemaker.finding_ids);
}

TEST(WandbEventsImport, IdleGpuDiagnosedAsTheSameSageMakerLog) {
  ExpectDiagnosedAsTheSameSageMakerLog(1, 2, ResourceClass::kIdle);
}

// The shape of a real run (Space Invaders, GPU about 5% while the host CPU is about 70%).
TEST(WandbEventsImport, StarvedGpuWithBusyCpuDiagnosedAsTheSameSageMakerLog) {
  ExpectDiagnosedAsTheSameSageMakerLog(5, 75, ResourceClass::kGpuStarvedCpu);
}

}  // namespace
}  // namespace stepdoctor
