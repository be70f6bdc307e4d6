#include "stepdoctor/render/collective_bandwidth_views.h"

#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

using render::FormatMs;
using render::HtmlEscape;
using render::MdText;

std::string Size(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

std::string Gbps(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "-"; }
std::string Share(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", *v) : "-"; }

// "NVLink 3 (A100 SXM4), 300 GB/s each way" / "unknown link"
std::string LinkHead(const CollectiveLinkInfo& l) {
  return l.peak_gbps ? fmt::format("{}, {:.4g} GB/s each way", l.name, *l.peak_gbps) : l.name;
}

}  // namespace

std::string CollectiveBandwidthText(const Report& r, std::string (*bold)(const std::string&), size_t width) {
  if (!r.collective_bandwidth || r.collective_bandwidth->rows.empty()) return "";
  const auto& bw = *r.collective_bandwidth;
  std::string out = "\n" + bold("Collective bandwidth") +
                    " (GB/s; bus bandwidth held against the link's peak in one direction)\n";
  out += fmt::format("  {:<14} {:>5} {:<14} {:>6} {:>10} {:>9} {:>7} {:>7} {:>8} {:>6} {:>4}\n", "kind", "ranks", "size",
                     "calls", "mean size", "mean ms", "algbw", "busbw", "transfer", "%peak", "link");
  for (const auto& row : bw.rows)
    out += fmt::format("  {:<14} {:>5} {:<14} {:>6} {:>10} {:>9.3f} {:>7.1f} {:>7} {:>8} {:>6} {:>4}\n", row.kind,
                       row.group_size, row.size_bucket, row.calls, Size(row.mean_bytes), row.mean_ms, row.algbw_gbps,
                       Gbps(row.busbw_gbps), Gbps(row.transfer_busbw_gbps), Share(row.busbw_of_peak_pct),
                       fmt::format("[{}]", row.link + 1));
  for (size_t i = 0; i < bw.links.size(); ++i)
    Wrapped(out, fmt::format("[{}] {}: {}", i + 1, LinkHead(bw.links[i]), bw.links[i].basis), width, "  ");
  Wrapped(out, "transfer: bus bandwidth over the transfer part (last arrival to completion); %peak: of the link's peak; " +
                   bw.note,
          width, "  ");
  return out;
}

std::string CollectiveBandwidthMarkdown(const Report& r) {
  if (!r.collective_bandwidth || r.collective_bandwidth->rows.empty()) return "";
  const auto& bw = *r.collective_bandwidth;
  std::string s = "### Collective bandwidth\n\n| Kind | Ranks | Size | Calls | Mean size | Mean time | algbw GB/s | "
                  "busbw GB/s | Transfer busbw GB/s | Of link peak | Link |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& row : bw.rows) {
    const std::string link = row.link >= 0 && size_t(row.link) < bw.links.size() ? bw.links[size_t(row.link)].name : "";
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f} | {} | {} | {} | {} |\n", MdText(row.kind), row.group_size,
                     MdText(row.size_bucket), row.calls, Size(row.mean_bytes), FormatMs(row.mean_ms), row.algbw_gbps,
                     Gbps(row.busbw_gbps), Gbps(row.transfer_busbw_gbps), Share(row.busbw_of_peak_pct), MdText(link));
  }
  s += "\n";
  for (const auto& l : bw.links) s += "- " + MdText(LinkHead(l)) + ": " + MdText(l.basis) + "\n";
  s += "- " + MdText(bw.note) + "\n\n";
  return s;
}

std::string CollectiveBandwidthHtml(const Report& r) {
  if (!r.collective_bandwidth || r.collective_bandwidth->rows.empty()) return "";
  const auto& bw = *r.collective_bandwidth;
  std::string s =
      "<section id=\"collective-bandwidth\">\n<h2>Collective bandwidth</h2>\n"
      "<table id=\"collective-bandwidth-table\"><thead><tr><th>kind</th><th class=\"num\">ranks</th><th>size</th>"
      "<th class=\"num\">calls</th><th class=\"num\">mean size</th><th class=\"num\">mean time</th>"
      "<th class=\"num\">algbw GB/s</th><th class=\"num\">busbw GB/s</th><th class=\"num\">transfer busbw GB/s</th>"
      "<th class=\"num\">of link peak</th><th>link</th></tr></thead><tbody>\n";
  for (const auto& row : bw.rows) {
    const std::string link = row.link >= 0 && size_t(row.link) < bw.links.size() ? bw.links[size_t(row.link)].name : "";
    s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{:.1f}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                     HtmlEscape(row.kind), row.group_size, HtmlEscape(row.size_bucket), row.calls, Size(row.mean_bytes),
                     FormatMs(row.mean_ms), row.algbw_gbps, Gbps(row.busbw_gbps), Gbps(row.transfer_busbw_gbps),
                     Share(row.busbw_of_peak_pct), HtmlEscape(link));
  }
  s += "</tbody></table>\n<ul class=\"plain\">";
  for (const auto& l : bw.links) s += "<li>" + HtmlEscape(LinkHead(l)) + ": " + HtmlEscape(l.basis) + "</li>";
  s += "<li>" + HtmlEscape(bw.note) + "</li></ul>\n</section>\n";
  return s;
}

}  // namespace stepdoctor
