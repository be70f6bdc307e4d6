// The subcommand table: each entry is {name, summary, setup}. main() only dispatches.
// Each command lives in its own cmd_<name>.cc and is listed once in commands.cc.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace stepdoctor::cli {

// Exit statuses of the stepdoctor command.
inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitFailOn = 1;    // a --fail-on condition was met
inline constexpr int kExitBadInput = 2;  // unusable input or arguments

// Adds the subcommand's options to `sub`; returns the function that runs it after parsing.
using CommandSetup = std::function<int()> (*)(CLI::App& sub);

struct Command {
  const char* name;
  const char* summary;
  CommandSetup setup;
};

const std::vector<Command>& Commands();

// Prints "stepdoctor: <message>" on stderr (one line).
void PrintError(const std::string& message);

// The commands (cmd_<name>.cc).
std::function<int()> SetupDiagnose(CLI::App& sub);
std::function<int()> SetupInspect(CLI::App& sub);

}  // namespace stepdoctor::cli
