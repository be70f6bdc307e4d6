#include "commands.h"

#include <cstdio>

namespace stepdoctor::cli {

void PrintError(const std::string& message) { std::fprintf(stderr, "stepdoctor: %s\n", message.c_str()); }

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"diagnose", "say what bounds the training step, how much each fix gains, and the code to change",
       &SetupDiagnose},
      {"inspect", "list what was read from the inputs: workers, devices, timelines, import problems", &SetupInspect},
  };
  return kCommands;
}

}  // namespace stepdoctor::cli
