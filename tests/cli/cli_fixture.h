// Running the CLI from a folder of its own (tests/cli/): a fresh temporary folder, the command
// run there through the shell, and a terminal for it (util-linux `script`).
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "test_util.h"

namespace stepdoctor::testing {

// A fresh folder under the test temp dir (ctest runs tests in parallel processes).
inline std::string FreshTempDir(const std::string& prefix) {
  std::string tmpl = ::testing::TempDir() + prefix + "_XXXXXX";
  if (!mkdtemp(tmpl.data())) ADD_FAILURE() << "mkdtemp " << tmpl;
  return tmpl;
}

// Runs `command_line` (a shell command; "stepdoctor" means the built binary) in `dir`.
inline CliResult RunIn(const std::string& dir, const std::string& command_line, const std::string& env = "") {
  std::string line = command_line;
  if (line.rfind("stepdoctor ", 0) == 0) line = std::string(STEPDOCTOR_CLI_PATH) + line.substr(10);
  std::string out = FreshTempDir("sd_run_out") + "/", err = out;
  out += "stdout";
  err += "stderr";
  std::string cmd = "cd '" + dir + "' && " + env + " " + line + " >" + out + " 2>" + err + " </dev/null";
  int rc = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = ReadFileOrDie(out);
  r.err = ReadFileOrDie(err);
  return r;
}

inline bool HaveScript() { return ::access("/usr/bin/script", X_OK) == 0; }

// Runs the CLI with `args` from the source root with stdout and stderr on a pseudo-terminal
// (TERM=xterm, whatever the caller's); returns everything the terminal received.
inline std::string UnderTerminal(const std::string& env, const std::string& args) {
  std::string cmd = "cd '" + std::string(STEPDOCTOR_SOURCE_DIR) + "' && TERM=xterm " + env + " script -qec \"" +
                    STEPDOCTOR_CLI_PATH + " " + args + "\" /dev/null </dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace stepdoctor::testing
