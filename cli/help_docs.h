// The man page and the bash completion, generated from the same CLI11 app that prints --help
// (the subcommand table in commands.cc and each command's options), so they cannot drift.
// The build runs the hidden `stepdoctor help-man` and `stepdoctor help-bash-completion`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace stepdoctor::cli {

// stepdoctor(1) in roff (man(7) macros): every visible subcommand with its options.
std::string ManPage(const CLI::App& app, const std::string& version);
// A bash completion script: subcommand names, then each subcommand's options; file names
// otherwise.
std::string BashCompletion(const CLI::App& app);

}  // namespace stepdoctor::cli
