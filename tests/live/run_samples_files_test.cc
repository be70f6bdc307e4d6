// `stepdoctor run` end to end on its samples files: ranks started together in one folder each
// keep their own file, named with the rank from the launcher's environment; an --out that
// exists is refused before the job starts; `diagnose` on the folder reads them as one job.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;

std::string TempDir() { return testing::MakeTempDir("sd_run_files"); }
std::string Read(const std::string& path) { return testing::ReadFileOrDie(path); }

std::vector<std::string> SamplesFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.rfind("stepdoctor-samples-", 0) == 0) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs a shell line in `dir`, the launcher's rank variables cleared first.
int Shell(const std::string& dir, const std::string& line) {
  std::string cmd = "cd '" + dir + "' && unset RANK SLURM_PROCID OMPI_COMM_WORLD_RANK && { " + line + "; }";
  return std::system(cmd.c_str());
}

const std::string kRun = std::string(STEPDOCTOR_CLI_PATH) + " run -q --no-gpu --interval 100ms";

// Two ranks started at once in one folder (as srun starts them): two files, each named with its
// rank, each whole; then `diagnose` on the folder names them as one job.
TEST(RunSamplesFiles, RanksStartedTogetherKeepTheirOwnFiles) {
  const std::string dir = TempDir();
  Shell(dir, "RANK=0 " + kRun + " -- sleep 1 >/dev/null 2>&1 & SLURM_PROCID=1 " + kRun +
                 " -- sleep 1 >/dev/null 2>&1; wait");
  std::vector<std::string> files = SamplesFiles(dir);
  ASSERT_EQ(files.size(), 2u);
  int rank0 = files[0].find("-rank0-pid") != std::string::npos ? 0 : 1;
  EXPECT_NE(files[rank0].find("-rank0-pid"), std::string::npos) << files[rank0];
  EXPECT_NE(files[1 - rank0].find("-rank1-pid"), std::string::npos) << files[1 - rank0];
  for (const auto& f : files) {
    std::string text = Read(dir + "/" + f);
    EXPECT_NE(text.find("\"stepdoctor_samples\":1"), std::string::npos) << f;
    EXPECT_NE(text.find("\"stepdoctor_samples_end\":true"), std::string::npos) << f;
  }
  EXPECT_NE(Read(dir + "/" + files[rank0]).find("\"rank\":0"), std::string::npos);

  auto r = testing::RunCli("diagnose '" + dir + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 samples files of one job (ranks 0, 1 on 1 host)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("step figures are for"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Without a rank, two runs in the same second still differ (by pid): nothing is replaced.
TEST(RunSamplesFiles, TwoRunsInOneSecondWithoutARank) {
  const std::string dir = TempDir();
  Shell(dir, kRun + " -- sleep 0.2 >/dev/null 2>&1 & " + kRun + " -- sleep 0.2 >/dev/null 2>&1; wait");
  std::vector<std::string> files = SamplesFiles(dir);
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_EQ(f.find("-rank"), std::string::npos) << f;
    EXPECT_NE(f.find("-pid"), std::string::npos) << f;
    EXPECT_NE(Read(dir + "/" + f).find("\"stepdoctor_samples_end\":true"), std::string::npos) << f;
  }
  fs::remove_all(dir);
}

// An --out that exists is refused before the job starts, and left as it was.
TEST(RunSamplesFiles, ExistingOutIsNeverOverwritten) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/s.jsonl") << "an earlier run\n";
  int rc = Shell(dir, kRun + " --out s.jsonl -- touch ran 2>err.txt >/dev/null");
  EXPECT_NE(rc, 0);
  EXPECT_EQ(Read(dir + "/s.jsonl"), "an earlier run\n");
  EXPECT_FALSE(fs::exists(dir + "/ran"));
  EXPECT_NE(Read(dir + "/err.txt").find("s.jsonl: cannot write the samples file: the file exists"), std::string::npos)
      << Read(dir + "/err.txt");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepdoctor
