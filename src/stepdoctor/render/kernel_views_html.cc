#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/kernel_views.h"

namespace stepdoctor {

using render::HtmlEscape;

std::string KernelViewsHtml(const Report& r) {
  if (!r.kernel_tables) return "";
  const KernelTables& k = *r.kernel_tables;
  std::string s = "<section id=\"kernels\">\n<h2>Kernels by operator</h2>\n";
  s += "<h4>Kernels each top operator launched</h4>\n<table id=\"op-kernels\"><thead><tr><th>operator / kernel</th>"
       "<th class=\"num\">kernels</th><th class=\"num\">device ms</th><th class=\"num\">mean launch delay us</th>"
       "</tr></thead><tbody>\n";
  for (const auto& o : k.ops) {
    if (o.kernels == 0) continue;
    s += fmt::format("<tr><td class=\"name\"><b>{}</b> ({}x)</td><td class=\"num\">{}</td><td class=\"num\">{:.3f}</td>"
                     "<td class=\"num\">{:.1f}</td></tr>\n",
                     HtmlEscape(o.op), o.op_count, o.kernels, o.device_ms, o.mean_delay_us);
    for (const auto& row : o.rows)
      s += fmt::format("<tr><td class=\"name\">&nbsp;&nbsp;{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3f}</td>"
                       "<td class=\"num\">{:.1f}</td></tr>\n",
                       HtmlEscape(row.kernel), row.count, row.device_ms, row.mean_delay_us);
  }
  s += "</tbody></table>\n";
  if (std::string u = UnenclosedText(k); !u.empty()) s += "<p class=\"note\">" + HtmlEscape(u) + ".</p>\n";
  s += "<h4>Device work by class</h4>\n<table id=\"kernel-classes\"><thead><tr><th>class</th><th class=\"num\">count</th>"
       "<th class=\"num\">total ms</th><th class=\"num\">mean us</th><th class=\"num\">min us</th><th class=\"num\">max us</th>"
       "</tr></thead><tbody>\n";
  for (const auto& c : k.classes)
    s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.1f}</td>"
                     "<td class=\"num\">{:.1f}</td><td class=\"num\">{:.1f}</td></tr>\n",
                     c.work_class, c.count, c.total_ms, c.mean_us, c.min_us, c.max_us);
  s += "</tbody></table>\n";
  s += fmt::format("<p class=\"meta\">Launch delay (kernel start minus launch start): median {:.1f} us over {} launches{}; "
                   "{} outliers over {:.0f} us.</p>\n",
                   k.median_delay_us, k.delays, HtmlEscape(QueuedDelayText(k)), k.outlier_count, k.outlier_threshold_us);
  if (!k.outliers.empty()) {
    s += "<table id=\"delay-outliers\"><thead><tr><th>kernel</th><th>launch</th><th class=\"num\">delay us</th>"
         "<th class=\"num\">at ms</th></tr></thead><tbody>\n";
    for (const auto& o : k.outliers)
      s += fmt::format("<tr><td class=\"name\">{}</td><td>{}</td><td class=\"num\">{:.1f}</td><td class=\"num\">{:.3f}</td></tr>\n",
                       HtmlEscape(o.kernel), HtmlEscape(o.launch), o.delay_us, o.at_ms);
    s += "</tbody></table>\n";
  }
  if (!k.queues.empty()) {
    s += "<h4>Launched, not yet started, per stream</h4>\n<table id=\"stream-queues\"><thead><tr><th>stream</th>"
         "<th class=\"num\">max</th><th class=\"num\">mean</th></tr></thead><tbody>\n";
    for (const auto& q : k.queues)
      s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.2f}</td></tr>\n", HtmlEscape(q.stream),
                       q.max_queued, q.mean_queued);
    s += "</tbody></table>\n";
  }
  s += "</section>\n";
  return s;
}

}  // namespace stepdoctor
