// Small helpers the Markdown, HTML and diff renderers share: escaping trace text, formatting
// numbers for display, and the fixed colour of each step-time category.
#pragma once

#include <string>
#include <string_view>

namespace stepdoctor::render {

// Escapes & < > " ' for HTML text and attribute values (kernel names hold < > &).
std::string HtmlEscape(std::string_view s);

// Milliseconds with precision that suits their size: "0.042", "3.14", "45.2", "152".
std::string FormatMs(double ms);
// A share of 0-100 with one decimal: "31.2%".
std::string FormatPct(double pct);
// A signed change with a unit suffix: "+12.3", "-0.04", "0" (two decimals below 1).
std::string FormatSigned(double v, std::string_view suffix = "");
// A count that may be fractional (per step): "12", "3.5".
std::string FormatCount(double n);

// Cuts `s` to at most `max_chars` bytes (on a UTF-8 boundary), ending in "..." when cut.
std::string Shorten(std::string_view s, size_t max_chars);

// Markdown: plain text with the characters GitHub would read as markup escaped (and '|', so it
// is safe in table cells); `code` spans that survive table cells; fenced code blocks.
std::string MdText(std::string_view s);
std::string MdCode(std::string_view s);
std::string MdFence(std::string_view code, std::string_view lang);

// The opening of a self-contained page: doctype, <head> with inline CSS (screen and print),
// and <body><main>. HtmlPageEnd closes it with a footer naming the tool version.
std::string HtmlPageStart(std::string_view title);
std::string HtmlPageEnd(std::string_view tool_version);

// A severity or verdict badge: <span class="badge sev-high">high</span>.
std::string Badge(std::string_view text, std::string_view css_class);

// The display colour (#rrggbb) of a step-time category id; unknown ids get a stable fallback.
const char* CategoryColor(std::string_view category);

}  // namespace stepdoctor::render
