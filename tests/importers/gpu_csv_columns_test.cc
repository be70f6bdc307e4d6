// The GPU log column table (importers/samples/gpu_csv_columns) and the cell readers it relies
// on: every spelling family maps onto the same series, units come from brackets or a last word,
// and a one-column header is recognised by format detection.
#include "stepdoctor/importers/samples/gpu_csv_columns.h"

#include <gtest/gtest.h>

#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/importers/samples/csv_fields.h"

namespace stepdoctor {
namespace {

using gpucsv::ClassifyHeader;
using gpucsv::ColumnKind;
using series::GpuMetric;

constexpr double kMiB = 1024.0 * 1024.0;

TEST(GpuCsvColumns, NormaliseFoldsCaseSeparatorsAndUnits) {
  auto h = gpucsv::NormaliseHeader(" Memory.Used [MiB]");
  EXPECT_EQ(h.name, "memory_used");
  EXPECT_EQ(h.unit, "mib");
  h = gpucsv::NormaliseHeader("mem_used_mb");
  EXPECT_EQ(h.name, "mem_used");
  EXPECT_EQ(h.unit, "mb");
  h = gpucsv::NormaliseHeader("GPU Util (%)");
  EXPECT_EQ(h.name, "gpu_util");
  EXPECT_EQ(h.unit, "%");
  h = gpucsv::NormaliseHeader("util%");
  EXPECT_EQ(h.name, "util");
  EXPECT_EQ(h.unit, "%");
  EXPECT_EQ(gpucsv::NormaliseHeader("\xEF\xBB\xBFtimestamp").name, "timestamp");
}

TEST(GpuCsvColumns, SpellingsOfOneMetricMapOntoOneSeries) {
  struct Case {
    const char* header;
    GpuMetric metric;
  };
  const Case cases[] = {
      {"utilization.gpu [%]", GpuMetric::kUtilPct}, {"gpu_util_pct", GpuMetric::kUtilPct},
      {"Utilization", GpuMetric::kUtilPct},         {"gpu_utilization", GpuMetric::kUtilPct},
      {"GPU Utilisation %", GpuMetric::kUtilPct},   {"utilization.memory [%]", GpuMetric::kMemUtilPct},
      {"Memory Used", GpuMetric::kMemUsedBytes},    {"memory_used", GpuMetric::kMemUsedBytes},
      {"memory.total [MiB]", GpuMetric::kMemTotalBytes}, {"Memory Max", GpuMetric::kMemTotalBytes},
      {"memory used [%]", GpuMetric::kMemUsedPct},  {"Power Used", GpuMetric::kPowerW},
      {"power.draw [W]", GpuMetric::kPowerW},       {"power_w", GpuMetric::kPowerW},
      {" Power Max", GpuMetric::kPowerLimitW},      {"power.limit [W]", GpuMetric::kPowerLimitW},
      {"Temperature", GpuMetric::kTempCelsius},     {"temp_c", GpuMetric::kTempCelsius},
      {"clocks.current.sm [MHz]", GpuMetric::kSmClockMhz},
  };
  for (const Case& c : cases) {
    gpucsv::ColumnMeaning m = ClassifyHeader(c.header);
    EXPECT_EQ(m.kind, ColumnKind::kMetric) << c.header;
    EXPECT_EQ(m.metric, c.metric) << c.header;
  }
  for (const char* ignored : {"Fan", "pstate", "loss", "step"})
    EXPECT_EQ(ClassifyHeader(ignored).kind, ColumnKind::kIgnore) << ignored;
  EXPECT_EQ(ClassifyHeader("memory.free [MiB]").kind, ColumnKind::kMemFree);  // a total with memory.used
  EXPECT_EQ(ClassifyHeader("memory.free [MiB]").scale, 1024.0 * 1024);
}

TEST(GpuCsvColumns, KeysTimesAndUnits) {
  EXPECT_EQ(ClassifyHeader("index").kind, ColumnKind::kGpuIndex);
  EXPECT_EQ(ClassifyHeader("gpu").kind, ColumnKind::kGpuIndex);
  EXPECT_EQ(ClassifyHeader("pci.bus_id").kind, ColumnKind::kGpuBusId);
  EXPECT_EQ(ClassifyHeader(" uuid").kind, ColumnKind::kGpuUuid);
  EXPECT_EQ(ClassifyHeader("name").kind, ColumnKind::kGpuName);
  EXPECT_EQ(ClassifyHeader("Date").kind, ColumnKind::kDate);
  EXPECT_EQ(ClassifyHeader("Time").kind, ColumnKind::kTimestamp);
  EXPECT_EQ(ClassifyHeader("elapsed_sec").kind, ColumnKind::kElapsed);
  EXPECT_EQ(ClassifyHeader("time_ms").scale, 1e-3);
  // Memory: the unit's bytes; no unit: 0 (MiB unless the values say bytes).
  EXPECT_EQ(ClassifyHeader("memory.used [MiB]").scale, kMiB);
  EXPECT_EQ(ClassifyHeader("mem_used_mb").scale, kMiB);
  EXPECT_EQ(ClassifyHeader("memory.total [GiB]").scale, kMiB * 1024);
  EXPECT_EQ(ClassifyHeader("memory_used_bytes").scale, 1);
  EXPECT_EQ(ClassifyHeader("memory_used").scale, 0);
}

TEST(GpuCsvColumns, HeaderNamingAGpuMetricIsDetectedEvenWithOneColumn) {
  EXPECT_TRUE(gpucsv::NamesAGpuMetric("utilization.gpu [%]"));
  EXPECT_TRUE(gpucsv::NamesAGpuMetric("gpu_util_pct"));
  EXPECT_FALSE(gpucsv::NamesAGpuMetric("    Temperature"));  // a section title of `nvidia-smi -q`, not a header
  EXPECT_TRUE(gpucsv::NamesAGpuMetric("Time,Temperature"));
  EXPECT_TRUE(gpucsv::NamesAGpuMetric("Date,Time,Utilization"));
  EXPECT_FALSE(gpucsv::NamesAGpuMetric("timestamp, index, name"));
  EXPECT_FALSE(gpucsv::NamesAGpuMetric("step,loss,lr"));
  EXPECT_EQ(DetectFormat("utilization.gpu [%]\n85 %\nutilization.gpu [%]\n100 %\n", "u.csv"), InputFormat::kCsv);
  EXPECT_EQ(DetectFormat("utilization.gpu [%]\r\n85 %\r\n", "u"), InputFormat::kCsv);
  EXPECT_EQ(DetectFormat("loss\n2.3\n", "loss.csv"), InputFormat::kUnknown);  // one column, not a GPU metric
  EXPECT_EQ(DetectFormat("hello world\n", "notes.txt"), InputFormat::kUnknown);
}

TEST(CsvFields, NumbersWithUnitsWithOrWithoutASpace) {
  double v, scale;
  ASSERT_TRUE(csv::ParseNumber("85%", &v, &scale));
  EXPECT_EQ(v, 85);
  EXPECT_EQ(scale, 0);
  ASSERT_TRUE(csv::ParseNumber("1070MiB", &v, &scale));
  EXPECT_EQ(v, 1070);
  EXPECT_EQ(scale, kMiB);
  ASSERT_TRUE(csv::ParseNumber(" 74.01 W", &v, &scale));
  EXPECT_EQ(v, 74.01);
  EXPECT_FALSE(csv::ParseNumber("26.11\n0", &v, &scale));  // a quoted field holding two lines
  EXPECT_FALSE(csv::ParseNumber("12 apples", &v, &scale));
  EXPECT_FALSE(csv::ParseNumber("N/A", &v, &scale));
}

TEST(CsvFields, DatesWithTheYearLastAndBareTimesOfDay) {
  int64_t iso, day_first, us, dotted;
  ASSERT_EQ(csv::ParseTimestamp("2021-03-04 13:32:39", &iso), TimeParse::kOk);
  ASSERT_EQ(csv::ParseTimestamp("04-03-2021 13:32:39", &day_first), TimeParse::kOk);
  ASSERT_EQ(csv::ParseTimestamp("03/04/2021 13:32:39", &us), TimeParse::kOk);
  ASSERT_EQ(csv::ParseTimestamp("04.03.2021 13:32:39", &dotted), TimeParse::kOk);
  EXPECT_EQ(day_first, iso);
  EXPECT_EQ(us, iso);
  EXPECT_EQ(dotted, iso);
  int64_t ns;
  ASSERT_TRUE(csv::ParseClockTime("13:32:39.5", &ns));
  EXPECT_EQ(ns, (13 * 3600 + 32 * 60 + 39) * 1000000000LL + 500000000);
  EXPECT_FALSE(csv::ParseClockTime("13:32:39 tomorrow", &ns));
  EXPECT_NE(csv::ParseTimestamp("13:32:39", &ns), TimeParse::kOk);  // a time of day is not a point in time
}

// A home-made logger's `t,util_gpu,mem_used_mib`: two words name one metric in either order, and
// a bare `t` (or `ts`) is the sample's time; three words are not reordered.
TEST(GpuCsvColumns, TwoWordNamesInEitherOrderAndBareTimeColumns) {
  EXPECT_EQ(ClassifyHeader("util_gpu").kind, ColumnKind::kMetric);
  EXPECT_EQ(ClassifyHeader("util_gpu").metric, GpuMetric::kUtilPct);
  EXPECT_EQ(ClassifyHeader("used_mem [MiB]").metric, GpuMetric::kMemUsedBytes);
  EXPECT_EQ(ClassifyHeader("t").kind, ColumnKind::kTimestamp);
  EXPECT_EQ(ClassifyHeader("ts").kind, ColumnKind::kTimestamp);
  EXPECT_EQ(ClassifyHeader("used_gpu_memory").kind, ColumnKind::kIgnore);
}

}  // namespace
}  // namespace stepdoctor
