// `run --logdir`: live samples beside a profile of the same run are judged over the profiled
// steps, not the whole run (timestamps are both epoch-based).
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor {
namespace {

constexpr int64_t kT0Us = 1700000000000000;  // epoch microseconds: the profile's clock

// Samples every 100 ms for 10 s; the GPU is busy (90%) only during [4 s, 6 s).
std::string Samples() {
  std::string s = "{\"stepdoctor_samples\":1,\"hostname\":\"h\",\"cores\":8,\"interval_ns\":100000000,"
                  "\"gpus\":[{\"index\":0,\"name\":\"G\",\"memory_total_bytes\":1000000000}],\"nvml\":\"ok\"}\n";
  for (int i = 0; i < 100; ++i) {
    int64_t ts = kT0Us * 1000 + int64_t(i) * 100'000'000;
    bool busy = i >= 40 && i < 60;
    s += "{\"ts_ns\":" + std::to_string(ts) + ",\"cpu_pct_total\":10,\"gpu0_util_pct\":" + (busy ? "90" : "5") +
         ",\"gpu0_mem_used_bytes\":100000000,\"gpu0_mem_total_bytes\":1000000000}\n";
  }
  return s;
}

// A profile of 4 steps inside [4.2 s, 5.8 s).
std::string Profile() {
  std::string s = "{\"schemaVersion\":1,\"traceEvents\":[";
  for (int i = 0; i < 4; ++i) {
    int64_t ts = kT0Us + 4'200'000 + int64_t(i) * 400'000;
    s += std::string(i ? "," : "") + "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" +
         std::to_string(i) + "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + ",\"dur\":400000}";
    s += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(ts) +
         ",\"dur\":380000,\"args\":{\"device\":0}}";
  }
  return s + "]}";
}

bool HasFinding(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return true;
  return false;
}

Report Analyze(bool with_profile) {
  Trace t;
  std::string samples = Samples(), profile = Profile();
  auto s = OpenMaybeCompressed(samples, "run.jsonl");
  EXPECT_TRUE(ImportSource(*s, t, {}).ok());
  if (with_profile) {
    auto p = OpenMaybeCompressed(profile, "worker0.pt.trace.json");
    EXPECT_TRUE(ImportSource(*p, t, {}).ok());
  }
  t.Finalize();
  return AnalyzeTrace(t);
}

TEST(SamplesWithProfile, JudgedOverTheProfiledSteps) {
  Report alone = Analyze(false);
  EXPECT_TRUE(HasFinding(alone, "low_gpu_utilisation"));  // 9% over the whole run
  Report both = Analyze(true);
  EXPECT_FALSE(HasFinding(both, "low_gpu_utilisation"));  // 90% while the profile ran
  bool noted = false;
  for (const auto& n : both.notes) noted |= n.find("profiled steps") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace stepdoctor
