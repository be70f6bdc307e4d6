// stepdoctor: why is this training step slow, and what to change.
#include <cstdio>
#include <memory>
#include <string>

#include "build_info.h"
#include "commands.h"
#include "help_docs.h"

namespace {

using namespace stepdoctor::cli;

// The hidden generators the build runs: `help-man` and `help-bash-completion` print what the
// app's own table and options say (to -o FILE, or stdout).
void AddGenerator(CLI::App& app, const char* name, std::function<std::string()> generate,
                  std::function<int()>* run) {
  CLI::App* sub = app.add_subcommand(name, "");
  sub->group("");  // hidden from --help, the man page and the completion
  auto out = std::make_shared<std::string>();
  sub->add_option("-o,--output", *out, "write to this file instead of stdout");
  sub->callback([run, out, generate] {
    *run = [out, generate] { return WriteOutput(generate(), *out) ? kExitOk : kExitBadInput; };
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string version = std::string("stepdoctor ") + STEPDOCTOR_VERSION;
  CLI::App app{"stepdoctor: finds what bounds a training step and says what to change"};
  app.set_version_flag("--version", version + " (" + GitRevision() + ")");
  app.require_subcommand(1);
  std::function<int()> run;
  for (const Command& c : Commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    auto fn = c.setup(*sub);
    AddQuietFlag(*sub);
    sub->footer(ExamplesFooter(c));
    sub->callback([&run, fn] { run = fn; });
  }
  AddGenerator(app, "help-man", [&app, version] { return ManPage(app, version); }, &run);
  AddGenerator(app, "help-bash-completion", [&app] { return BashCompletion(app); }, &run);

  int rc = kExitBadInput;
  try {
    app.parse(argc, argv);
    if (run) rc = run();
  } catch (const CLI::ParseError& e) {
    rc = app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  // What a command printed itself (inspect, scalars, --help) is checked here; a write the
  // command already reported keeps the status it chose (run returns its job's).
  bool reported = StdoutErrorReported();
  if (!FlushStdout() && !reported) return kExitBadInput;
  return rc;
}
