// Year-last dates in GPU logs: which field is the day is read from the log's own dates (a
// field above 12, a step of one day in one field), not assumed from the separator alone.
#include <gtest/gtest.h>

#include <string>

#include "stepdoctor/importers/samples/csv_fields.h"
#include "stepdoctor/importers/samples/date_order_judge.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;
using testing::NotesOf;

int64_t At(const char* iso) {
  int64_t ns = 0;
  EXPECT_EQ(csv::ParseTimestamp(iso, &ns), TimeParse::kOk) << iso;
  return ns;
}

std::string Log(std::initializer_list<const char*> times) {
  std::string csv = "timestamp, name, utilization.gpu [%], memory.used [MiB]\n";
  for (const char* t : times) csv += std::string(t) + ", Orin, 99, 26133\n";
  return csv;
}

// A Jetson log written "%m-%d-%Y": across midnight the second field steps by one. Read day
// first, 03-11 to 03-12 was a month, and the log a month long with a hole at midnight.
TEST(GpuLogDates, MonthFirstWithDashesSettledByTheStepAtMidnight) {
  Trace t;
  Status st = ImportText(Log({"03-11-2026 23:58:16", "03-11-2026 23:59:16", "03-12-2026 00:00:16", "03-12-2026 00:01:16"}),
                         "gpu_stats.csv", &t);
  ASSERT_TRUE(st.ok()) << st.message();
  const CounterSeries* u = testing::FindCounter(t, "gpu0_util_pct");
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(u->ts_ns.size(), 4u);
  EXPECT_EQ(u->ts_ns[0], At("2026-03-11 23:58:16"));  // all rows, the held ones too
  EXPECT_EQ(u->ts_ns[3] - u->ts_ns[0], 180 * 1000000000LL);
  EXPECT_NE(NotesOf(t).find("dates read month first"), std::string::npos) << NotesOf(t);
}

TEST(GpuLogDates, AFieldAboveTwelveIsTheDay) {
  Trace month_first, day_first;
  ASSERT_TRUE(ImportText(Log({"03-11-2026 10:00:00", "03-13-2026 10:00:00"}), "a.csv", &month_first).ok());
  EXPECT_EQ(testing::FindCounter(month_first, "gpu0_util_pct")->ts_ns[0], At("2026-03-11 10:00:00"));
  ASSERT_TRUE(ImportText(Log({"11/03/2026 10:00:00", "13/03/2026 10:00:00"}), "b.csv", &day_first).ok());
  EXPECT_EQ(testing::FindCounter(day_first, "gpu0_util_pct")->ts_ns[0], At("2026-03-11 10:00:00"));
  EXPECT_NE(NotesOf(day_first).find("a first field of 13 can only be a day"), std::string::npos) << NotesOf(day_first);
}

// Within one day nothing tells: read as written, and said so.
TEST(GpuLogDates, OneDayIsReadAsWrittenWithANote) {
  Trace t;
  ASSERT_TRUE(ImportText(Log({"03-11-2026 10:00:00", "03-11-2026 10:01:00"}), "c.csv", &t).ok());
  EXPECT_EQ(testing::FindCounter(t, "gpu0_util_pct")->ts_ns[0], At("2026-11-03 10:00:00"));  // day first with '-'
  EXPECT_NE(NotesOf(t).find("no date tells its day from its month"), std::string::npos) << NotesOf(t);
  // Year-first dates are never in doubt: no note.
  Trace iso;
  ASSERT_TRUE(ImportText(Log({"2026/03/11 10:00:00.000", "2026/03/11 10:01:00.000"}), "d.csv", &iso).ok());
  EXPECT_EQ(NotesOf(iso).find("day from its month"), std::string::npos) << NotesOf(iso);
}

// memory.used and memory.free without memory.total: the GPU's memory is their sum.
TEST(GpuLogDates, MemoryFreeBesideUsedGivesTheTotal) {
  Trace t;
  ASSERT_TRUE(ImportText("timestamp, memory.used [MiB], memory.free [MiB], utilization.gpu [%]\n"
                         "2026/03/11 10:00:00.000, 26133, 36669, 99\n2026/03/11 10:00:01.000, 26146, 36656, 99\n",
                         "e.csv", &t)
                  .ok());
  const CounterSeries* total = testing::FindCounter(t, "gpu0_mem_total_bytes");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->value[0], (26133.0 + 36669.0) * 1024 * 1024);
  Trace both;  // a total column is taken as written
  ASSERT_TRUE(ImportText("timestamp, memory.used [MiB], memory.free [MiB], memory.total [MiB]\n"
                         "2026/03/11 10:00:00.000, 100, 50, 200\n",
                         "f.csv", &both)
                  .ok());
  EXPECT_EQ(testing::FindCounter(both, "gpu0_mem_total_bytes")->value, (std::vector<double>{200.0 * 1024 * 1024}));
}

TEST(GpuLogDates, JudgeSteps) {
  csv::DateOrderJudge j;
  j.See(1, 2);
  j.See(1, 2);
  EXPECT_FALSE(j.decided());
  j.See(2, 2);  // the first field stepped by one: it counts the days
  ASSERT_TRUE(j.decided());
  EXPECT_EQ(j.order(), csv::DateOrder::kDayFirst);
  csv::DateOrderJudge k;
  k.See(12, 31);  // 31 is a day
  EXPECT_EQ(k.order(), csv::DateOrder::kMonthFirst);
  csv::DateOrderJudge m;
  m.See(1, 12);
  m.See(2, 1);  // both fields changed (a month's end read either way): still open
  EXPECT_FALSE(m.decided());
  int a, b;
  EXPECT_TRUE(csv::YearLastDate("03-11-2026 15:13:16", &a, &b));
  EXPECT_EQ(a, 3);
  EXPECT_EQ(b, 11);
  EXPECT_FALSE(csv::YearLastDate("2026-03-11 15:13:16", &a, &b));
  EXPECT_FALSE(csv::YearLastDate("03-11-26 15:13:16", &a, &b));
}

}  // namespace
}  // namespace stepdoctor
