#include "commands.h"

#include <cstdio>

namespace stepdoctor::cli {

void PrintError(const std::string& message) { std::fprintf(stderr, "stepdoctor: %s\n", message.c_str()); }

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"diagnose", "say what bounds the training step, how much each fix gains, and the code to change",
       &SetupDiagnose},
      {"diff", "compare two runs: step time, breakdown, verdict, and kernels/ops added, removed, slower, faster",
       &SetupDiff},
      {"inspect", "list what was read from the inputs: workers, devices, timelines, import problems", &SetupInspect},
      {"run", "run a training command, sample its processes, CPU, disk and GPUs, then diagnose", &SetupRun},
      {"scalars", "what TensorBoard event files logged: runs, tags, last values, trends, step rate, stalls",
       &SetupScalars},
      {"watch", "attach read-only to a running job's process tree, sample it, then diagnose", &SetupWatch},
  };
  return kCommands;
}

}  // namespace stepdoctor::cli
