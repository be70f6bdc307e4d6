#include "stepdoctor/render/html_util.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

namespace stepdoctor::render {

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string FormatMs(double ms) {
  double a = std::abs(ms);
  if (a == 0) return "0";
  if (a >= 100) return fmt::format("{:.0f}", ms);
  if (a >= 10) return fmt::format("{:.1f}", ms);
  if (a >= 0.1) return fmt::format("{:.2f}", ms);
  return fmt::format("{:.3f}", ms);
}

std::string FormatPct(double pct) { return fmt::format("{:.1f}%", pct); }

std::string FormatSigned(double v, std::string_view suffix) {
  if (std::abs(v) < 0.005) return fmt::format("0{}", suffix);  // no "-0.00"
  if (std::abs(v) < 1) return fmt::format("{:+.2f}{}", v, suffix);
  return fmt::format("{:+.1f}{}", v, suffix);
}

std::string FormatCount(double n) {
  if (std::abs(n - std::round(n)) < 1e-9) return fmt::format("{:.0f}", n);
  return fmt::format("{:.1f}", n);
}

std::string Shorten(std::string_view s, size_t max_chars) {
  if (s.size() <= max_chars || max_chars < 4) return std::string(s);
  size_t cut = max_chars - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return std::string(s.substr(0, cut)) + "...";
}

std::string MdText(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    switch (c) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#':
        out += '\\';
        out += c;
        break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string MdCode(std::string_view s) {
  // A code span shows its text literally, except that a table still splits on '|' (GitHub
  // accepts "\\|" inside the span) and a backtick ends it (so the fence is lengthened).
  std::string body;
  for (char c : s) {
    if (c == '|') body += "\\|";
    else if (c == '\n' || c == '\r') body += ' ';
    else body += c;
  }
  std::string fence = "`";
  while (body.find(fence) != std::string::npos) fence += '`';
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string MdFence(std::string_view code, std::string_view lang) {
  std::string fence = "```";
  while (code.find(fence) != std::string_view::npos) fence += '`';
  std::string out = fence + std::string(lang) + "\n" + std::string(code);
  if (out.back() != '\n') out += '\n';
  return out + fence + "\n";
}

const char* CategoryColor(std::string_view category) {
  struct Entry {
    const char* id;
    const char* color;
  };
  static constexpr Entry kColors[] = {
      {"input", "#e8833a"},         {"kernel_launch", "#9467bd"}, {"host_compute", "#e6b422"},
      {"device_compute", "#4e9a4b"}, {"collectives", "#d64545"},  {"memcpy", "#3f8fb8"},
      {"other", "#a8a8a8"},
  };
  for (const auto& e : kColors)
    if (category == e.id) return e.color;
  static constexpr const char* kFallback[] = {"#8c6d31", "#17becf", "#bcbd22", "#7f7f7f", "#e377c2"};
  return kFallback[std::hash<std::string_view>{}(category) % std::size(kFallback)];
}

}  // namespace stepdoctor::render

namespace stepdoctor::render {
namespace {

// One stylesheet for every HTML page: readable at laptop widths, no web fonts, and a print
// layout that keeps colours and avoids splitting charts and findings across pages.
constexpr const char* kCss = R"css(
:root{--fg:#1d2127;--muted:#5d6670;--line:#d9dde2;--bg:#ffffff;--panel:#f6f7f9;--accent:#2f6fb3}
*{box-sizing:border-box}
html{color-scheme:light}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1120px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
h3{font-size:16px;margin:0 0 6px}
h4{font-size:13px;margin:12px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
p{margin:6px 0}
.meta{color:var(--muted);font-size:13px}
.meta code{font-size:12px}
nav.toc{font-size:13px;margin:10px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px}
nav.toc a{color:var(--accent);text-decoration:none}
.verdict{margin:18px 0 8px;padding:16px 20px;border-radius:8px;background:var(--panel);border-left:6px solid var(--accent)}
.verdict .summary{font-size:20px;font-weight:600;margin:6px 0 0}
.stats{display:flex;flex-wrap:wrap;gap:8px 28px;margin:12px 0 0;font-size:14px}
.stats div b{display:block;font-size:18px}
.stats div span{color:var(--muted);font-size:12px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:#6c757d;vertical-align:middle}
.sev-high{background:#c0392b}.sev-moderate{background:#d9771e}.sev-low{background:#b59a12}.sev-none{background:#4e9a4b}
.added{background:#4e9a4b}.removed{background:#6c757d}.better{background:#4e9a4b}.worse{background:#c0392b}.same{background:#6c757d}
.finding{border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:12px 0;break-inside:avoid}
.finding-high{border-left:5px solid #c0392b}.finding-moderate{border-left:5px solid #d9771e}
.finding-low{border-left:5px solid #b59a12}.finding-none{border-left:5px solid #4e9a4b}
.verdict-badge{background:var(--accent)}
.finding .gain{color:var(--muted);margin:2px 0 8px}
.fixes b{font-size:13px}
pre{background:#f3f4f6;border:1px solid var(--line);border-radius:6px;padding:10px 12px;overflow-x:auto;font-size:12.5px;line-height:1.45;margin:4px 0 10px;white-space:pre}
code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.name{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px;word-break:break-all}
tr:nth-child(even) td{background:#fbfbfc}
.sbar{display:inline-block;width:80px;height:9px;background:#e9ecef;border-radius:2px;vertical-align:middle;margin-left:6px;overflow:hidden}
.sbar span{display:block;height:100%}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;vertical-align:-1px;margin-right:5px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px;margin:6px 0 2px}
svg.chart{width:100%;height:auto;display:block;margin:6px 0}
svg .grid{stroke:#e6e8eb;stroke-width:1}
svg .axis{fill:#5d6670;font-size:11px}
svg .axis-line,svg .tick{stroke:#8a939c;stroke-width:1}
svg .median{stroke:#1d2127;stroke-width:1.2;stroke-dasharray:5 4}
svg .median-label{fill:#1d2127;font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg .outlier-mark{fill:#c0392b}
svg .bar-label{fill:#fff;font-size:12px;font-weight:600}
svg .lane-label{fill:#1d2127;font-size:11px}
svg .idle{fill:#eef0f3}
svg .busy{fill:#2f6fb3}
svg .path-host{fill:#e15759}svg .path-launch{fill:#f28e2b}svg .path-kernel{fill:#59a14f}
svg .path-copy{fill:#b07aa1}svg .path-wait{fill:#9c755f}
svg .series-line{fill:none;stroke:#2f6fb3;stroke-width:1.6}
svg g.step:hover rect{opacity:.8}
.note{color:var(--muted);font-size:13px}
ul.plain{padding-left:20px;margin:4px 0}
footer{margin-top:36px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:8px}
.delta-up{color:#c0392b}.delta-down{color:#2e7d32}
@media (max-width:700px){main{padding:14px}.verdict .summary{font-size:17px}}
@media print{
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  @page{margin:12mm}
  body{font-size:11.5px}
  main{max-width:none;padding:0}
  nav.toc{display:none}
  h2{break-after:avoid;margin-top:18px}
  section,.finding,svg.chart,table{break-inside:avoid}
  pre{white-space:pre-wrap;word-break:break-word;font-size:10px}
  a{color:inherit;text-decoration:none}
}
)css";

}  // namespace

std::string HtmlPageStart(std::string_view title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"stepdoctor\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
      HtmlEscape(title), kCss);
}

std::string HtmlPageEnd(std::string_view tool_version) {
  return fmt::format("<footer>Made by stepdoctor {}. This page is self-contained: no scripts, no network.</footer>\n"
                     "</main>\n</body>\n</html>\n",
                     HtmlEscape(tool_version));
}

std::string Badge(std::string_view text, std::string_view css_class) {
  return fmt::format("<span class=\"badge {}\">{}</span>", HtmlEscape(css_class), HtmlEscape(text));
}

}  // namespace stepdoctor::render
