// The subcommand table: each entry is {name, summary, setup, run}. main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace stepdoctor::cli {

// Exit statuses of the stepdoctor command.
inline constexpr int kExitOk = 0;         // success
inline constexpr int kExitFailOn = 1;     // a --fail-on condition was met
inline constexpr int kExitBadInput = 2;   // unusable input or arguments

struct Command {
  const char* name;
  const char* summary;
  // Adds the subcommand's options to `sub`; returns the function that runs it.
  std::function<int()> (*setup)(CLI::App& sub);
};

const std::vector<Command>& Commands();

// Prints "stepdoctor: <message>" on stderr (one line).
void PrintError(const std::string& message);

}  // namespace stepdoctor::cli
