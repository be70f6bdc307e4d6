// Starting the command `stepdoctor run` watches, waiting for it, and passing it the signals the
// user sends to stepdoctor (Ctrl-C, SIGTERM), so stopping stepdoctor stops the job as usual.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"

namespace stepdoctor::live {

// fork + execvp of argv[0] with the rest as arguments, inheriting stdio and the environment.
// A command that cannot be executed exits with 127 (the shell's convention) after printing
// why on stderr; the error here covers only a failed fork or an empty argv.
Result<int64_t> SpawnChild(const std::vector<std::string>& argv);

// Installs SIGINT/SIGTERM/SIGHUP handlers that forward the signal to `pid`, so stepdoctor itself
// outlives the child and reports. Signals the terminal sent to the whole foreground group
// (Ctrl-C) are not sent twice. One child at a time; -1 restores the default handlers.
void ForwardSignalsTo(int64_t pid);

// True once `pid` has exited, without reaping it (its /proc entry stays for a last sample).
bool ChildExited(int64_t pid);

// Reaps `pid` (blocking) and returns its status as a shell would: the exit code, or 128 + the
// signal number that killed it.
int ReapChild(int64_t pid);

}  // namespace stepdoctor::live
