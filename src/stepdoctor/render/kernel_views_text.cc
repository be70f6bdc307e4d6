#include <fmt/format.h>

#include "stepdoctor/render/kernel_views.h"

namespace stepdoctor {
namespace {

std::string Cut(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

}  // namespace

std::string KernelViewsText(const Report& r, std::string (*bold)(const std::string&), size_t width) {
  std::string out;
  const size_t name_w = width > 48 ? width - 40 : 8;
  if (r.critical_path && r.critical_path->median_index >= 0) {
    const StepCriticalPath& p = r.critical_path->steps[size_t(r.critical_path->median_index)];
    out += "\n" + bold("Critical path (median step)") +
           fmt::format(" step {}: {:.2f} ms, what sets its length\n", p.step, p.step_ms);
    std::string kinds;
    for (int k = 0; k < kPathKindCount; ++k)
      if (p.kind_ms[k] > 0)
        kinds += fmt::format("{}{} {:.2f} ms ({:.0f}%)", kinds.empty() ? "" : ", ", PathKindName(PathKind(k)),
                             p.kind_ms[k], p.path_ms > 0 ? 100 * p.kind_ms[k] / p.path_ms : 0);
    out += "  " + kinds + "\n";
    for (size_t i = 0; i < p.top.size() && i < kTextPathRowsShown; ++i)
      out += fmt::format("  {:>10.3f} ms {:<7} {:>6}x  {}\n", p.top[i].ms, PathKindName(p.top[i].kind), p.top[i].count,
                         Cut(p.top[i].name, name_w));
  }
  if (!r.kernel_tables) return out;
  const KernelTables& k = *r.kernel_tables;
  std::string ops;
  size_t shown = 0;
  for (const auto& o : k.ops) {
    if (o.kernels == 0 || shown == kTextOpsShown) continue;
    ++shown;
    ops += fmt::format("  {:>10.3f} ms {:>7} kernels {:>9.1f} us delay  {}\n", o.device_ms, o.kernels, o.mean_delay_us,
                       Cut(o.op, name_w - 10));
    for (size_t i = 0; i < o.rows.size() && i < kTextKernelsPerOpShown; ++i) {
      const OpKernelRow& row = o.rows[i];
      ops += fmt::format("    {:>10.3f} ms {:>6}x {:>9.1f} us  {}\n", row.device_ms, row.count, row.mean_delay_us,
                         Cut(row.kernel, name_w - 6));
    }
  }
  if (!ops.empty())
    out += "\n" + bold("Kernels of the top operators") + " (device time, kernels, mean launch delay)\n" + ops;
  if (std::string u = UnenclosedText(k); !u.empty()) out += "  " + u + "\n";
  if (!k.classes.empty()) {
    out += "\n" + bold("Device work by class") + " (count, total, mean / min / max)\n";
    for (const auto& c : k.classes)
      out += fmt::format("  {:<14} {:>8} {:>11.3f} ms {:>10.1f} / {:.1f} / {:.1f} us\n", c.work_class, c.count, c.total_ms,
                         c.mean_us, c.min_us, c.max_us);
  }
  if (k.delays > 0)
    out += fmt::format("  launch delay: median {:.1f} us over {} launches{}; {} over {:.0f} us (outliers)\n",
                       k.median_delay_us, k.delays, QueuedDelayText(k), k.outlier_count, k.outlier_threshold_us);
  for (const auto& q : k.queues)
    if (q.max_queued > 1)
      out += fmt::format("  queue on {}: at most {} launched, not started (mean {:.1f})\n", q.stream, q.max_queued,
                         q.mean_queued);
  return out;
}

}  // namespace stepdoctor
