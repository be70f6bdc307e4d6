// Starting the command `stepdoctor run` watches, waiting for it, and passing it the signals the
// user sends to stepdoctor (Ctrl-C, SIGTERM), so stopping stepdoctor stops the job as usual.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepdoctor/core/result.h"

namespace stepdoctor::live {

// fork + execvp of argv[0] with the rest as arguments, inheriting stdio and the environment.
// A command that cannot be executed exits with 127 (the shell's convention) after printing
// why on stderr; the error here covers only a failed fork or an empty argv.
Result<int64_t> SpawnChild(const std::vector<std::string>& argv);

// What `tune` changes for each trial (docs/tune.md): its environment, CPUs, process group and
// where its output goes.
struct SpawnOptions {
  std::vector<std::pair<std::string, std::string>> env;  // set in the child's environment (overriding)
  std::vector<int> cpus;        // CPU affinity; empty: inherited
  bool own_process_group = false;  // the child leads a new group (kill(-pid) reaches all it starts)
  int output_fd = -1;           // stdout and stderr both go here; -1: inherited
  bool stdin_null = false;      // stdin from /dev/null (a background group must not read the terminal)
};
Result<int64_t> SpawnChild(const std::vector<std::string>& argv, const SpawnOptions& opts);

// Installs SIGINT/SIGTERM/SIGHUP handlers that forward the signal to `pid`, so stepdoctor itself
// outlives the child and reports. Signals the terminal sent to the whole foreground group
// (Ctrl-C) are not sent twice. One child at a time; -1 restores the default handlers.
void ForwardSignalsTo(int64_t pid);
// The same for a child leading its own process group (SpawnOptions::own_process_group): every
// signal, Ctrl-C included (the terminal no longer reaches it), goes to the whole group.
void ForwardSignalsToGroup(int64_t pgid);
// The last signal received since the handlers were installed over the defaults (0: none): a
// caller that runs several children, forwarding to each in turn without restoring the defaults
// between them, stops starting more once the user asked to stop.
int LastForwardedSignal();

// True once `pid` has exited, without reaping it (its /proc entry stays for a last sample).
bool ChildExited(int64_t pid);

// Reaps `pid` (blocking) and returns its status as a shell would: the exit code, or 128 + the
// signal number that killed it.
int ReapChild(int64_t pid);

}  // namespace stepdoctor::live
