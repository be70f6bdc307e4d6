// --version, and the man page and bash completion the build generates from the command table
// (the hidden help-man and help-bash-completion commands): they list what --help lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::RunCli;

// The subcommand names `stepdoctor --help` lists under "Subcommands:".
std::vector<std::string> HelpSubcommands() {
  auto r = RunCli("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::vector<std::string> names;
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:" || line == "SUBCOMMANDS:") {  // CLI11 versions differ in case
      in_list = true;
    } else if (in_list && !line.empty() && line[0] == ' ') {
      std::istringstream words(line);
      std::string name;
      words >> name;
      names.push_back(name);
    } else if (in_list && !line.empty()) {
      in_list = false;
    }
  }
  return names;
}

TEST(CliVersion, PrintsTheVersionAndTheRevisionItWasBuiltFrom) {
  auto r = RunCli("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(r.out, m, std::regex("stepdoctor ([0-9.]+) \\(([^ ()]+)\\)\n"))) << r.out;
  EXPECT_EQ(m[1].str(), STEPDOCTOR_VERSION);
  std::string revision = m[2].str();
  // In a git checkout the revision must name a real commit (`git describe`: TAG-N-gHASH or
  // HASH, then -dirty); "unknown" only where there is no repository to ask.
  std::string src = STEPDOCTOR_SOURCE_DIR;
  if (std::system(("git -C '" + src + "' rev-parse --git-dir >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "not a git checkout: the revision is " << revision;
  ASSERT_NE(revision, "unknown");
  std::smatch h;
  ASSERT_TRUE(std::regex_match(revision, h, std::regex("(?:.*-g)?([0-9a-f]{7,40})(?:-dirty)?"))) << revision;
  EXPECT_EQ(std::system(("git -C '" + src + "' cat-file -e " + h[1].str() + "^{commit} 2>/dev/null").c_str()), 0)
      << revision << " is not a commit of this repository";
}

TEST(CliHelpDocs, TheManPageDocumentsEveryCommandAndOptionOfHelp) {
  auto man = RunCli("help-man");
  ASSERT_EQ(man.exit_code, 0) << man.err;
  EXPECT_EQ(man.out.rfind(".TH STEPDOCTOR 1 ", 0), 0u) << man.out.substr(0, 80);
  auto subs = HelpSubcommands();
  ASSERT_GE(subs.size(), 6u) << "diagnose, diff, inspect, run, scalars, watch at least";
  for (const auto& s : subs) {
    SCOPED_TRACE(s);
    // roff spells a hyphen \- (io-bench).
    EXPECT_NE(man.out.find("\n.SS " + std::regex_replace(s, std::regex("-"), "\\-") + "\n"), std::string::npos);
    // Every long option the subcommand's --help shows is in the man page (roff spells - as \-).
    auto help = RunCli(s + " --help");
    std::smatch m;
    for (auto it = help.out.cbegin(); std::regex_search(it, help.out.cend(), m, std::regex("--([a-z][a-z-]*)"));
         it = m[0].second) {
      if (m[1] == "help") continue;
      std::string roff = "\\-\\-" + std::regex_replace(m[1].str(), std::regex("-"), "\\-");
      EXPECT_NE(man.out.find(roff), std::string::npos) << "--" << m[1];
    }
  }
  for (const char* hidden : {"help-man", "help-bash-completion"})
    EXPECT_EQ(man.out.find(std::string(".SS ") + hidden), std::string::npos) << hidden;
}

TEST(CliHelpDocs, TheBashCompletionOffersEveryCommand) {
  auto comp = RunCli("help-bash-completion");
  ASSERT_EQ(comp.exit_code, 0) << comp.err;
  EXPECT_NE(comp.out.find("complete -o default -F _stepdoctor stepdoctor"), std::string::npos);
  for (const auto& s : HelpSubcommands()) EXPECT_NE(comp.out.find("    " + s + ") words=\""), std::string::npos) << s;
  EXPECT_EQ(comp.out.find("help-man"), std::string::npos) << "hidden commands are not offered";
}

TEST(CliHelpDocs, HiddenGeneratorsAreNotInHelp) {
  auto subs = HelpSubcommands();
  EXPECT_EQ(std::count(subs.begin(), subs.end(), "help-man"), 0);
  EXPECT_EQ(std::count(subs.begin(), subs.end(), "diagnose"), 1);
}

}  // namespace
}  // namespace stepdoctor
