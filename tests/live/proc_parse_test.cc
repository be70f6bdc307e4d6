// /proc parsers on inline text: every field the samplers read, and the awkward cases.
#include "stepdoctor/live/proc_parse.h"

#include <gtest/gtest.h>

#include "stepdoctor/live/sample.h"

namespace stepdoctor::live {
namespace {

TEST(LiveProcParse, ProcStatAggregateAndCores) {
  auto cpu = ParseProcStat(
      "cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 60 5 30 400 10 1 1 2 0 0\ncpu1 40 0 20 400 10 0 1 1 0 0\n"
      "intr 12345\nctxt 99\n");
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu[0].core, -1);
  EXPECT_EQ(cpu[1].core, 0);
  EXPECT_EQ(cpu[2].core, 1);
  EXPECT_EQ(cpu[0].iowait, 20u);
  EXPECT_EQ(cpu[0].steal, 3u);
  EXPECT_EQ(cpu[0].busy(), 100u + 5 + 50 + 1 + 2);
}

TEST(LiveProcParse, PidStatCommWithSpacesAndParens) {
  // comm "(py thon) x)" holds spaces and a ')': fields are read after the last ')'.
  std::string s =
      "4242 ((py thon) x)) D 4200 4242 4242 0 -1 4194560 1500 0 7 0 250 50 30 20 20 0 12 0 9999 100000 2560 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 42 0 0";
  auto st = ParsePidStat(s);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->pid, 4242);
  EXPECT_EQ(st->ppid, 4200);
  EXPECT_EQ(st->state, 'D');
  EXPECT_EQ(st->minflt, 1500u);
  EXPECT_EQ(st->majflt, 7u);
  EXPECT_EQ(st->utime, 250u);
  EXPECT_EQ(st->stime, 50u);
  EXPECT_EQ(st->cutime, 30u);
  EXPECT_EQ(st->cstime, 20u);
  EXPECT_EQ(st->num_threads, 12);
  EXPECT_EQ(st->rss_pages, 2560);
  EXPECT_EQ(st->blkio_ticks, 42u);
  EXPECT_FALSE(ParsePidStat("garbage").has_value());
  EXPECT_FALSE(ParsePidStat("12 (x) R 1 2").has_value());  // cut short
}

TEST(LiveProcParse, PidIoSchedStatPsiMemInfo) {
  auto io = ParsePidIo("rchar: 100\nwchar: 200\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\n"
                       "cancelled_write_bytes: 0\n");
  ASSERT_TRUE(io.has_value());
  EXPECT_EQ(io->read_bytes, 4096u);
  EXPECT_EQ(io->write_bytes, 8192u);
  EXPECT_EQ(io->rchar, 100u);
  EXPECT_FALSE(ParsePidIo("").has_value());  // permission denied reads as empty

  auto ss = ParseSchedStat("123456 789 10\n");
  ASSERT_TRUE(ss.has_value());
  EXPECT_EQ(ss->run_ns, 123456u);
  EXPECT_EQ(ss->wait_ns, 789u);

  auto psi = ParsePsi("some avg10=1.20 avg60=1.64 avg300=0.73 total=7417168\nfull avg10=0.03 avg60=0.23 avg300=0.29 total=5720948\n");
  ASSERT_TRUE(psi.has_value());
  EXPECT_EQ(psi->some_total_us, 7417168u);
  EXPECT_EQ(psi->full_total_us, 5720948u);
  EXPECT_FALSE(ParsePsi("").has_value());

  auto m = ParseMemInfo("MemTotal:       24684084 kB\nMemFree:  100 kB\nMemAvailable:   23086428 kB\n");
  EXPECT_EQ(m.total_bytes, 24684084ull * 1024);
  EXPECT_EQ(m.available_bytes, 23086428ull * 1024);
}

TEST(LiveProcParse, DiskStatsAndWhichDisksCount) {
  auto d = ParseDiskStats(
      " 252       0 vda 1000 10 20000 500 2000 20 40000 900 0 1500 1400 0 0 0 0 0 0\n"
      " 252       1 vda1 900 10 18000 450 1900 20 39000 850 0 1400 1300 0 0 0 0\n"
      "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name, "vda");
  EXPECT_EQ(d[0].sectors_read, 20000u);
  EXPECT_EQ(d[0].sectors_written, 40000u);
  EXPECT_EQ(d[0].io_ms, 1500u);
  EXPECT_TRUE(IsReportedDisk("vda"));
  EXPECT_TRUE(IsReportedDisk("sda"));
  EXPECT_TRUE(IsReportedDisk("nvme0n1"));
  EXPECT_FALSE(IsReportedDisk("vda1"));
  EXPECT_FALSE(IsReportedDisk("nvme0n1p2"));
  EXPECT_FALSE(IsReportedDisk("loop0"));
  EXPECT_FALSE(IsReportedDisk("zram0"));
  EXPECT_FALSE(IsReportedDisk("dm-0"));
}

TEST(LiveProcParse, NetDevSkipsLoopback) {
  auto n = ParseNetDev(
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
      "    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0\n"
      "  eth0: 1000 5 0 0 0 0 0 0 300 3 0 0 0 0 0 0\n");
  EXPECT_EQ(n.rx_bytes, 1000u);
  EXPECT_EQ(n.tx_bytes, 300u);
}

TEST(LiveProcParse, SeriesUnitsFromSuffix) {
  EXPECT_EQ(SeriesUnit("gpu0_util_pct"), "%");
  EXPECT_EQ(SeriesUnit("disk_read_bytes_per_s"), "bytes/s");
  EXPECT_EQ(SeriesUnit("proc_rss_bytes"), "bytes");
  EXPECT_EQ(SeriesUnit("proc_majflt_per_s"), "1/s");
  EXPECT_EQ(SeriesUnit("gpu1_power_w"), "W");
  EXPECT_EQ(SeriesUnit("gpu0_sm_clock_mhz"), "MHz");
  EXPECT_EQ(SeriesUnit("proc_threads"), "count");
}

}  // namespace
}  // namespace stepdoctor::live
