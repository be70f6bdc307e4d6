// Samples file names and creation (live/samples_path, SamplesWriter::Create): the rank from the
// launcher's environment, the default name (time, host, rank, pid), and exclusive creation that
// never truncates or writes into an existing file.
#include "stepdoctor/live/samples_path.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::live {
namespace {

namespace fs = std::filesystem;

int RankWith(const std::map<std::string, std::string>& env) {
  return RankFromEnvironment([&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(SamplesPath, RankFromTheLaunchersEnvironment) {
  EXPECT_EQ(RankWith({}), -1);
  EXPECT_EQ(RankWith({{"RANK", "3"}}), 3);
  EXPECT_EQ(RankWith({{"SLURM_PROCID", "5"}}), 5);
  EXPECT_EQ(RankWith({{"OMPI_COMM_WORLD_RANK", "7"}}), 7);
  // torchrun's RANK first, then srun's, then mpirun's.
  EXPECT_EQ(RankWith({{"RANK", "1"}, {"SLURM_PROCID", "2"}, {"OMPI_COMM_WORLD_RANK", "3"}}), 1);
  EXPECT_EQ(RankWith({{"SLURM_PROCID", "2"}, {"OMPI_COMM_WORLD_RANK", "3"}}), 2);
  // What is not a rank is skipped, not read as 0.
  EXPECT_EQ(RankWith({{"RANK", ""}, {"SLURM_PROCID", "4"}}), 4);
  EXPECT_EQ(RankWith({{"RANK", "x1"}}), -1);
  EXPECT_EQ(RankWith({{"RANK", "-1"}}), -1);
  EXPECT_EQ(RankWith({{"RANK", "2 "}}), -1);
  EXPECT_EQ(RankWith({{"RANK", "99999999999"}}), -1);
}

TEST(SamplesPath, DefaultNameCarriesTimeHostRankAndPid) {
  setenv("TZ", "UTC", 1);
  tzset();
  const std::time_t t = 1736850600;  // 2025-01-14 10:30:00 UTC
  EXPECT_EQ(DefaultSamplesName("gpu-node-7", 3, 4242, t), "stepdoctor-samples-20250114-103000-gpu-node-7-rank3-pid4242.jsonl");
  EXPECT_EQ(DefaultSamplesName("gpu-node-7", -1, 4242, t), "stepdoctor-samples-20250114-103000-gpu-node-7-pid4242.jsonl");
  // A host name is made safe for a file name, and never empty.
  EXPECT_EQ(DefaultSamplesName("a/b c:d", 0, 1, t), "stepdoctor-samples-20250114-103000-a_b_c_d-rank0-pid1.jsonl");
  EXPECT_EQ(DefaultSamplesName("", 0, 1, t), "stepdoctor-samples-20250114-103000-host-rank0-pid1.jsonl");
  // Two ranks, or two processes of one rank, started in the same second differ.
  EXPECT_NE(DefaultSamplesName("h", 0, 100, t), DefaultSamplesName("h", 1, 100, t));
  EXPECT_NE(DefaultSamplesName("h", 0, 100, t), DefaultSamplesName("h", 0, 101, t));
  unsetenv("TZ");
  tzset();
}

std::string TempDir() { return testing::MakeTempDir("sd_samples_path"); }
std::string Read(const std::string& path) { return testing::ReadFileOrDie(path); }

TEST(SamplesPath, CreateNeverOverwritesAnExistingFile) {
  const std::string dir = TempDir();
  const std::string path = dir + "/s.jsonl";
  std::ofstream(path) << "earlier run\n";

  auto exact = SamplesWriter::Create(path, SamplesPathMode::kExact);
  ASSERT_FALSE(exact.ok());
  EXPECT_EQ(exact.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(exact.message().find(path + ": the file exists"), std::string::npos) << exact.message();
  EXPECT_EQ(Read(path), "earlier run\n");

  // A default name that is taken gets the next free number, twice over.
  for (const char* expected : {"/s-2.jsonl", "/s-3.jsonl"}) {
    auto w = SamplesWriter::Create(path, SamplesPathMode::kFirstFree);
    ASSERT_TRUE(w.ok()) << w.message();
    EXPECT_EQ((*w)->path(), dir + expected);
    (*w)->WriteEnd(1, 0, 0);
  }
  EXPECT_EQ(Read(path), "earlier run\n");
  EXPECT_NE(Read(dir + "/s-2.jsonl").find("stepdoctor_samples_end"), std::string::npos);

  auto missing = SamplesWriter::Create(dir + "/no/such/dir/s.jsonl", SamplesPathMode::kFirstFree);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("No such file"), std::string::npos) << missing.message();
  fs::remove_all(dir);
}

TEST(SamplesPath, HeaderRecordsTheRank) {
  SamplesHeader h;
  h.hostname = "n";
  h.rank = 3;
  EXPECT_NE(SamplesHeaderJson(h).find("\"rank\":3"), std::string::npos) << SamplesHeaderJson(h);
  h.rank = -1;
  EXPECT_EQ(SamplesHeaderJson(h).find("\"rank\""), std::string::npos) << SamplesHeaderJson(h);
}

}  // namespace
}  // namespace stepdoctor::live
