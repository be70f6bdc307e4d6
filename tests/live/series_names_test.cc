// Series names are built and parsed in one place (model/series_names.h): names round-trip, and
// near misses are not taken for GPU or core series.
#include <gtest/gtest.h>

#include "stepdoctor/model/series_names.h"

namespace stepdoctor::series {
namespace {

TEST(SeriesNames, GpuNamesRoundTrip) {
  EXPECT_EQ(GpuSeriesName(0, GpuMetric::kUtilPct), "gpu0_util_pct");
  EXPECT_EQ(GpuSeriesName(12, GpuMetric::kMemUsedBytes), "gpu12_mem_used_bytes");
  EXPECT_EQ(GpuSeriesName(1, GpuMetric::kAllocatedBytes), "gpu1_memory_allocated_bytes");
  int g = -1;
  EXPECT_TRUE(IsGpuSeries("gpu12_util_pct", GpuMetric::kUtilPct, &g));
  EXPECT_EQ(g, 12);
  EXPECT_FALSE(IsGpuSeries("gpu0_mem_util_pct", GpuMetric::kUtilPct, &g));  // another metric
  EXPECT_FALSE(IsGpuSeries("gpu_util_pct", GpuMetric::kUtilPct, &g));       // no index
  EXPECT_EQ(GpuIndexOf("gpu3_power_w"), 3);
  EXPECT_EQ(GpuIndexOf("gpux_power_w"), -1);
  EXPECT_EQ(GpuIndexOf("gpu3"), -1);
}

TEST(SeriesNames, HostNamesAndUnits) {
  EXPECT_EQ(CpuCoreSeriesName(7), "cpu_core7_pct");
  EXPECT_EQ(CpuCoreOf("cpu_core7_pct"), 7);
  EXPECT_EQ(CpuCoreOf(kCpuPctTotal), -1);
  EXPECT_EQ(DiskSeriesName("nvme0n1", DiskMetric::kUtilPct), "disk_nvme0n1_util_pct");
  EXPECT_EQ(PsiSeriesName("io", false), kPsiIoSomePct);
  EXPECT_EQ(SeriesUnit(GpuSeriesName(0, GpuMetric::kPowerW)), "W");
  EXPECT_EQ(SeriesUnit(kProcReadBytesPerS), "bytes/s");
  EXPECT_EQ(SeriesUnit(kProcThreads), "count");
}

}  // namespace
}  // namespace stepdoctor::series
