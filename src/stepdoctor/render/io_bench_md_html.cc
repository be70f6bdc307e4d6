// IoBenchReport -> Markdown (a pull request, a CI job summary) and a self-contained HTML page.
// The same figures as the text report; nothing is computed here.
#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/io_bench_render.h"

namespace stepdoctor {
namespace {

using render::HtmlEscape;
using render::MdCode;
using render::MdText;

std::string Summary(const IoBenchReport& r) {
  return fmt::format("{} files, {} ({} small < {} MiB, mean {}; {} large)", r.files, IoBenchSize(double(r.bytes)),
                     r.small_files, r.small_file_threshold_bytes >> 20, IoBenchSize(r.mean_small_file_bytes),
                     r.large_files);
}

std::string FilesPerS(const IoBenchPhase& p) {
  return p.kind == kPhaseSmallFiles ? fmt::format("{:.0f}", p.files_per_s) : "-";
}

std::string Need(const IoBenchReport& r) {
  return fmt::format("{:.0f} samples/s x {} = {:.1f} MB/s ({})", r.need->samples_per_s,
                     IoBenchSize(r.need->bytes_per_sample), r.need->mb_per_s, r.need->source);
}

}  // namespace

std::string RenderIoBenchMarkdown(const IoBenchReport& r) {
  std::string out = "## stepdoctor io-bench " + MdCode(r.path) + "\n\n";
  out += MdText(Summary(r)) + ". Cache: " + MdText(r.cache_note) + ".\n\n";
  out += "| Read | Readers | Files | Bytes | Seconds | MB/s | Files/s |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& p : r.phases)
    out += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.1f} | {} |\n", MdCode(p.kind), p.readers, p.files,
                       IoBenchSize(double(p.bytes)), p.seconds, p.mb_per_s, FilesPerS(p));
  if (r.need) out += "\n**Job needs:** " + MdText(Need(r)) + "\n";
  if (!r.findings.empty()) {
    out += "\n### Findings\n\n";
    for (const auto& f : r.findings) out += "- " + MdText(f) + "\n";
  }
  return out;
}

std::string RenderIoBenchHtml(const IoBenchReport& r, const std::string& tool_version) {
  std::string out = render::HtmlPageStart("stepdoctor io-bench " + r.path);
  out += "<h1>io-bench <code>" + HtmlEscape(r.path) + "</code></h1>\n";
  out += "<p>" + HtmlEscape(Summary(r)) + "</p>\n<p>Cache: " + HtmlEscape(r.cache_note) + "</p>\n";
  out += "<table>\n<thead><tr><th>read</th><th>readers</th><th>files</th><th>bytes</th><th>seconds</th>"
         "<th>MB/s</th><th>files/s</th></tr></thead>\n<tbody>\n";
  for (const auto& p : r.phases)
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2f}</td><td>{:.1f}</td><td>{}</td></tr>\n",
                       HtmlEscape(p.kind), p.readers, p.files, IoBenchSize(double(p.bytes)), p.seconds, p.mb_per_s,
                       FilesPerS(p));
  out += "</tbody>\n</table>\n";
  if (r.need) out += "<p><strong>Job needs:</strong> " + HtmlEscape(Need(r)) + "</p>\n";
  if (!r.findings.empty()) {
    out += "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : r.findings) out += "<li>" + HtmlEscape(f) + "</li>\n";
    out += "</ul>\n";
  }
  return out + render::HtmlPageEnd(tool_version);
}

}  // namespace stepdoctor
