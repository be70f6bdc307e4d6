// stepdoctor whatif TRACE --fix F...: the step time each fix would give, from a replay of the
// trace's step model (docs/whatif.md).
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/render/whatif_render.h"

namespace stepdoctor::cli {
namespace {

struct WhatIfArgs {
  std::vector<std::string> paths;
  std::vector<std::string> fixes;
  int cores = 0;
  std::string format = "text";
  std::string output;
};

}  // namespace

std::function<int()> SetupWhatIf(CLI::App& sub) {
  auto a = std::make_shared<WhatIfArgs>();
  sub.add_option("paths", a->paths, "trace files or folders (as diagnose reads them)")->required();
  sub.add_option("--fix", a->fixes, "a fix to predict (repeatable): " + FixSyntaxHelp() + "; default: every fix but comm and batch, which need their device count or scale");
  sub.add_option("--cores", a->cores, "CPU cores of the machine that ran the job (loader workers share them)")
      ->check(CLI::Range(1, 1 << 16));
  sub.add_option("-f,--format", a->format, "text|json")->capture_default_str();
  sub.add_option("-o,--output", a->output, "write the report to this file instead of stdout");
  return [a]() -> int {
    if (a->format != "text" && a->format != "json") {
      PrintError("--format " + a->format + ": unknown format (expected text or json)");
      return kExitBadInput;
    }
    std::vector<std::string> texts = a->fixes;
    if (texts.empty()) texts = {"input", "launch", "cpuwork", "stalls", "amp", "overlap"};
    std::vector<FixSpec> fixes;
    for (const auto& t : texts) {
      auto f = ParseFix(t);
      if (!f.ok()) {
        PrintError(f.message());
        return kExitBadInput;
      }
      fixes.push_back(std::move(*f));
    }
    auto imported = ImportForCommand(a->paths, "");
    if (!imported) return kExitBadInput;
    WhatIfOptions o;
    o.cores = a->cores;
    const WhatIfReport r = TraceToWhatIf(imported->trace, fixes, o);
    if (r.steps == 0) {
      PrintError(a->paths.front() + ": no steps or activity to replay");
      return kExitBadInput;
    }
    const std::string text = a->format == "json" ? RenderWhatIfJson(r) : RenderWhatIfText(r);
    return WriteOutput(text, a->output) ? kExitOk : kExitBadInput;
  };
}

}  // namespace stepdoctor::cli
