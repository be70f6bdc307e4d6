// Every command's --help ends with 1-3 examples, and they run: each example line is taken from
// --help itself and run when everything it reads is at hand — the bundled examples/ (linked
// into a scratch folder) and logs/, a small TensorBoard logdir written here. Examples that
// need a training job or a process id (run, watch) are shown, not run.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "cli/cli_fixture.h"
#include "test_util.h"
#include "tfevents/event_file_writer.h"

namespace stepdoctor {
namespace {

const char* const kCommands[] = {"diagnose", "diff", "inspect", "run", "scalars", "tune", "watch"};

// The lines under "Examples:" in `stepdoctor CMD --help`, without their indent.
std::vector<std::string> HelpExamples(const std::string& cmd) {
  auto r = testing::RunCli(cmd + " --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::vector<std::string> out;
  bool in_examples = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Examples:") in_examples = true;
    else if (in_examples && line.rfind("  ", 0) == 0) out.push_back(line.substr(line.find_first_not_of(' ')));
    else if (in_examples) in_examples = false;
  }
  return out;
}

// The words of an example that name inputs: those with a '/' (options and their values aside).
std::vector<std::string> InputPaths(const std::string& example) {
  std::istringstream words(example);
  std::vector<std::string> out;
  std::string w, prev;
  for (; words >> w; prev = w) {
    bool output_value = prev == "-o" || prev == "--output" || prev == "--out";
    if (w[0] != '-' && !output_value && w.find('/') != std::string::npos) out.push_back(w);
  }
  return out;
}

TEST(HelpExamples, EveryCommandShowsOneToThreeOfItsOwn) {
  for (const char* cmd : kCommands) {
    SCOPED_TRACE(cmd);
    auto examples = HelpExamples(cmd);
    EXPECT_GE(examples.size(), 1u);
    EXPECT_LE(examples.size(), 3u);
    for (const auto& e : examples) EXPECT_EQ(e.rfind(std::string("stepdoctor ") + cmd + " ", 0), 0u) << e;
  }
}

TEST(HelpExamples, TheRunnableOnesRun) {
  namespace fs = std::filesystem;
  std::string dir = testing::FreshTempDir("sd_help_examples");
  fs::create_directory_symlink(testing::SourcePath("examples"), dir + "/examples");
  testing::WriteTrainingLogdir(dir + "/logs");
  int ran = 0;
  for (const char* cmd : kCommands) {
    for (const auto& e : HelpExamples(cmd)) {
      auto paths = InputPaths(e);
      bool at_hand = !paths.empty();
      for (const auto& p : paths) at_hand &= fs::exists(dir + "/" + p);
      if (!at_hand) continue;
      SCOPED_TRACE(e);
      auto r = testing::RunIn(dir, e);
      // 1 is a --fail-on gate that was met: the example shows a CI gate working.
      EXPECT_TRUE(r.exit_code == 0 || (r.exit_code == 1 && e.find("--fail-on") != std::string::npos))
          << r.exit_code << "\n" << r.err;
      if (auto o = e.find(" -o "); o != std::string::npos) {
        std::string file = e.substr(o + 4, e.find(' ', o + 4) - (o + 4));
        EXPECT_GT(fs::file_size(dir + "/" + file), 0u) << file;
      } else {
        EXPECT_FALSE(r.out.empty()) << "prints nothing";
      }
      ++ran;
    }
  }
  // diagnose (3), diff (1), inspect (2), scalars (2) name bundled examples or logs/.
  EXPECT_GE(ran, 8);
}

}  // namespace
}  // namespace stepdoctor
