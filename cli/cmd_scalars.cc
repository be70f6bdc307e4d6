// stepdoctor scalars LOGDIR...: what TensorBoard event files logged, per run and tag (count,
// steps, last value, min, trend, step rate), and the stalls their wall times show. The figures
// come from analysis/scalars_to_summary; render/scalars_* print them.
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/scalars_to_summary.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/scalars_render.h"

namespace stepdoctor::cli {
namespace {

struct ScalarsArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string output;  // empty: stdout
};

}  // namespace

std::function<int()> SetupScalars(CLI::App& sub) {
  auto a = std::make_shared<ScalarsArgs>();
  sub.add_option("paths", a->paths, "TensorBoard logdirs or event files")->required();
  sub.add_option("-f,--format", a->format, "output format: " + JoinNames(ScalarsRendererNames()));
  sub.add_option("-o,--output", a->output, "write to this file instead of stdout");
  return [a]() -> int {
    ScalarsRenderer render = FindScalarsRenderer(a->format);
    if (!render) {
      PrintError("--format " + a->format + ": unknown format (" + JoinNames(ScalarsRendererNames()) + ")");
      return kExitBadInput;
    }
    auto imported = ImportForCommand(a->paths, "");
    if (!imported) return kExitBadInput;
    ScalarsSummary summary = ScalarsToSummary(*imported);
    return WriteOutput(render(summary, RenderOptions{}), a->output) ? kExitOk : kExitBadInput;
  };
}

}  // namespace stepdoctor::cli
