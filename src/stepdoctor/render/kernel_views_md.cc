#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/kernel_views.h"

namespace stepdoctor {

using render::FormatMs;
using render::MdText;

std::string KernelViewsMarkdown(const Report& r) {
  std::string s;
  if (r.critical_path && r.critical_path->median_index >= 0) {
    const StepCriticalPath& p = r.critical_path->steps[size_t(r.critical_path->median_index)];
    s += fmt::format("### Critical path (median step)\n\nStep {}: {} ms, what sets its length.\n\n", p.step,
                     FormatMs(p.step_ms));
    s += "| Kind | Time (ms) | Share of the path |\n|---|---:|---:|\n";
    for (int k = 0; k < kPathKindCount; ++k)
      if (p.kind_ms[k] > 0)
        s += fmt::format("| {} | {} | {:.0f}% |\n", PathKindName(PathKind(k)), FormatMs(p.kind_ms[k]),
                         p.path_ms > 0 ? 100 * p.kind_ms[k] / p.path_ms : 0);
    s += "\n| Contributor | Kind | Time (ms) | Count |\n|---|---|---:|---:|\n";
    for (size_t i = 0; i < p.top.size() && i < kTextPathRowsShown; ++i)
      s += fmt::format("| {} | {} | {} | {} |\n", MdText(p.top[i].name), PathKindName(p.top[i].kind),
                       FormatMs(p.top[i].ms), p.top[i].count);
    s += "\n";
  }
  if (!r.kernel_tables) return s;
  const KernelTables& k = *r.kernel_tables;
  std::string rows;
  size_t shown = 0;
  for (const auto& o : k.ops) {
    if (o.kernels == 0 || shown == kTextOpsShown) continue;
    ++shown;
    rows += fmt::format("| {} | {} | {} | {:.1f} us |\n", MdText(o.op), o.kernels, FormatMs(o.device_ms), o.mean_delay_us);
  }
  if (!rows.empty())
    s += "### Kernels of the top operators\n\n| Operator | Kernels | Device time (ms) | Mean launch delay |\n"
         "|---|---:|---:|---:|\n" + rows + "\n";
  if (std::string u = UnenclosedText(k); !u.empty()) s += MdText(u) + ".\n\n";
  if (k.delays > 0)
    s += fmt::format("Launch delay: median {:.1f} us over {} launches{}; {} over {:.0f} us (outliers).\n\n",
                     k.median_delay_us, k.delays, QueuedDelayText(k), k.outlier_count, k.outlier_threshold_us);
  return s;
}

}  // namespace stepdoctor
