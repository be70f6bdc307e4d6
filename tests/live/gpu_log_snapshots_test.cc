// A GPU log of a few snapshots far apart (analysis/resource_snapshots): findings read from the
// utilisation stay moderate, give no gain figure and say what the sampling was. A log as sparse
// but with many samples, or as short but sampled every second, is judged as it stands.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/analysis/resource_snapshots.h"
#include "gpu_log_signals.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// `n` samples `every_s` apart of one GPU at 4% and 20% in turn, 6 GiB held.
std::string Log(int n, double every_s) {
  std::string csv = "timestamp,utilization.gpu [%],memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < n; ++i) csv += fmt::format("{:.1f}, {} %, 6000 MiB, 24000 MiB\n", 1746556382.0 + every_s * i, i % 2 ? 4 : 20);
  return csv;
}

const Finding* Low(const Report& r) { return testing::FindFinding(r, "low_gpu_utilisation"); }

TEST(GpuLogSnapshots, FewSamplesFarApartGiveNoGainBothSides) {
  Report sparse;
  testing::GpuLogSignals(Log(int(kSnapshotMaxSamples) - 1, kSnapshotIntervalS), &sparse);
  const Finding* f = Low(sparse);
  ASSERT_NE(f, nullptr) << sparse.verdict.summary;
  EXPECT_LE(f->severity, FindingSeverity::kModerate);
  EXPECT_EQ(f->gain_upper_bound, 1.0);
  EXPECT_NE(f->gain_text.find("snapshots"), std::string::npos) << f->gain_text;
  // As many samples as a mean can stand on: judged as it stands.
  Report many;
  testing::GpuLogSignals(Log(int(kSnapshotMaxSamples), kSnapshotIntervalS), &many);
  ASSERT_NE(Low(many), nullptr);
  EXPECT_EQ(Low(many)->severity, FindingSeverity::kHigh);
  EXPECT_GT(Low(many)->gain_upper_bound, 1.0);
  // As few, but a second apart: the job's own short log.
  Report dense;
  testing::GpuLogSignals(Log(int(kSnapshotMaxSamples) - 1, kSnapshotIntervalS - 1), &dense);
  ASSERT_NE(Low(dense), nullptr);
  EXPECT_GT(Low(dense)->gain_upper_bound, 1.0);
}

}  // namespace
}  // namespace stepdoctor
