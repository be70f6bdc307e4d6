// stepdoctor: why is this training step slow, and what to change.
#include <cstdio>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace stepdoctor::cli;
  CLI::App app{"stepdoctor: finds what bounds a training step and says what to change"};
  app.set_version_flag("--version", std::string("stepdoctor ") + STEPDOCTOR_VERSION);
  app.require_subcommand(1);
  std::function<int()> run;
  for (const Command& c : Commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    auto fn = c.setup(*sub);
    sub->callback([&run, fn] { run = fn; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  return run ? run() : kExitBadInput;
}
