// The HTML report: self-contained, escaped, and, in headless Chromium (Debian's `chromium`),
// rendered without console errors with its verdict and charts, and a screenshot saved for a
// look by eye (/tmp/stepdoctor-html-test/*.png).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "render/sample_report.h"
#include "stepdoctor/render/render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/bin/chromium";

fs::path OutDir() {
  fs::path dir = fs::temp_directory_path() / "stepdoctor-html-test";
  fs::create_directories(dir);
  return dir;
}

void WriteFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

size_t Count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + needle.size())) ++n;
  return n;
}

struct BrowserRun {
  int exit_code = -1;
  std::string dom;          // the DOM after load (--dump-dom)
  std::string console;      // console messages the page logged, one per line
  bool screenshot = false;  // the PNG was written
};

// Opens `html` in headless Chromium twice: once for the DOM and console log, once for a
// screenshot at laptop width. Flags keep it offline and fit for running as root in a container.
BrowserRun OpenInChromium(const fs::path& html, const fs::path& png) {
  BrowserRun r;
  char tmpl[] = "/tmp/sd_chromium_XXXXXX";
  fs::path profile = mkdtemp(tmpl);
  std::string flags = std::string(kChromium) +
                      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                      " --disable-background-networking --disable-component-update --disable-sync"
                      " --disable-extensions --hide-scrollbars --user-data-dir=" +
                      profile.string();
  fs::path dom = profile / "dom.html", log = profile / "log.txt";
  std::string cmd = "timeout 120 " + flags + " --enable-logging=stderr --v=0 --dump-dom 'file://" + html.string() +
                    "' >'" + dom.string() + "' 2>'" + log.string() + "'";
  int rc = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.dom = testing::ReadFileOrDie(dom.string());
  std::string all = testing::ReadFileOrDie(log.string());
  // Console messages (errors, failed loads, CSP violations) appear as ":CONSOLE" log lines.
  std::regex line_re("[^\n]*:CONSOLE[^\n]*");
  for (std::sregex_iterator it(all.begin(), all.end(), line_re), end; it != end; ++it) r.console += it->str() + "\n";
  fs::remove(png);
  cmd = "timeout 120 " + flags + " --window-size=1280,2400 --screenshot='" + png.string() + "' 'file://" +
        html.string() + "' >/dev/null 2>&1";
  rc = std::system(cmd.c_str());
  std::string bytes = fs::exists(png) ? testing::ReadFileOrDie(png.string()) : "";
  r.screenshot = bytes.size() > 1000 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
  std::error_code ec;
  fs::remove_all(profile, ec);
  return r;
}

#define SD_CHROMIUM_OR_SKIP()                                                                          \
  if (!fs::exists(kChromium))                                                                         \
  GTEST_SKIP() << kChromium << " not found: install Debian's chromium package (apt-get install "     \
                  "chromium) to run the browser check of the HTML report"

TEST(HtmlReport, EscapesTextFromTraces) {
  std::string html = RenderHtml(testing::SampleReport(), {});
  EXPECT_NE(html.find("kernel|with|pipes &amp; &lt;angle&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<angle>"), std::string::npos);
  EXPECT_NE(html.find("runs/a&amp;b/worker0"), std::string::npos);
  EXPECT_NE(html.find("dgrad_engine&lt;float, 512"), std::string::npos);
  EXPECT_NE(html.find("if a &lt; b and c &gt; d"), std::string::npos);  // fix code in <pre>
  EXPECT_NE(html.find("negative duration &lt;bad&gt;"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA A100-SXM4-80GB&#39; &lt;&amp;&gt;"), std::string::npos);  // a link's basis
}

TEST(HtmlReport, IsSelfContainedAndPrintable) {
  std::string html = RenderHtml(testing::SampleReport(), {});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
}

TEST(HtmlReport, HasVerdictFindingsAndCharts) {
  Report r = testing::SampleReport();
  std::string html = RenderHtml(r, {});
  EXPECT_NE(html.find(r.verdict.summary), std::string::npos);
  EXPECT_NE(html.find("id=\"finding-input_bound\""), std::string::npos);
  EXPECT_NE(html.find("class=\"fix-pytorch\""), std::string::npos);
  EXPECT_NE(html.find("class=\"fix-tensorflow\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"step-chart\""), std::string::npos);
  EXPECT_EQ(Count(html, "<g class=\"step"), 6u);                 // one bar per step
  EXPECT_EQ(Count(html, "class=\"seg seg-input\""), 6u);         // each stacked by category
  EXPECT_EQ(Count(html, "<path class=\"outlier-mark\""), 1u);    // step 21
  EXPECT_NE(html.find("<svg id=\"breakdown-bar\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"timeline-chart\""), std::string::npos);
  EXPECT_EQ(Count(html, "<rect class=\"busy\""), 12u);           // 2 lanes x 6 intervals
  EXPECT_NE(html.find("<svg id=\"series-0\" class=\"chart series-chart\""), std::string::npos);
  EXPECT_NE(html.find("id=\"devices-table\""), std::string::npos);
  EXPECT_NE(html.find("id=\"collective-bandwidth-table\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#collective-bandwidth\""), std::string::npos);
}

TEST(HtmlReport, EmptyReportStillRenders) {
  Report r;
  std::string html = RenderHtml(r, {});
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("No findings."), std::string::npos);
}

TEST(HtmlReport, OpensInHeadlessChromium) {
  SD_CHROMIUM_OR_SKIP();
  Report r = testing::SampleReport();
  fs::path html = OutDir() / "sample-report.html", png = OutDir() / "sample-report.png";
  WriteFile(html, RenderHtml(r, {}));
  BrowserRun b = OpenInChromium(html, png);
  ASSERT_EQ(b.exit_code, 0);
  EXPECT_EQ(b.console, "") << "the page logged console messages";
  EXPECT_NE(b.dom.find(r.verdict.summary), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"step-chart\""), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"timeline-chart\""), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"series-0\""), std::string::npos);
  EXPECT_TRUE(b.screenshot) << "no screenshot at " << png;
  std::printf("screenshot: %s\n", png.c_str());
}

// End to end: a real trace through `stepdoctor diagnose --format html`, then the browser.
TEST(HtmlReport, DiagnoseTraceOpensInHeadlessChromium) {
  SD_CHROMIUM_OR_SKIP();
  std::string trace = testing::CorpusPath(
      "kineto-tb-plugin-samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz");
  if (trace.empty()) trace = testing::SourcePath("examples/dataloader_input_bound.pt.trace.json.gz");
  fs::path html = OutDir() / "diagnose-report.html", png = OutDir() / "diagnose-report.png";
  fs::remove(html);
  auto cli = testing::RunCli("diagnose '" + trace + "' --format html -o '" + html.string() + "'");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  std::string page = testing::ReadFileOrDie(html.string());
  BrowserRun b = OpenInChromium(html, png);
  ASSERT_EQ(b.exit_code, 0);
  EXPECT_EQ(b.console, "") << "the page logged console messages";
  EXPECT_NE(b.dom.find("input-bound"), std::string::npos);  // both traces wait on their DataLoader
  EXPECT_NE(b.dom.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"step-chart\""), std::string::npos);
  EXPECT_NE(b.dom.find("class=\"seg seg-input\""), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"timeline-chart\""), std::string::npos);
  EXPECT_TRUE(b.screenshot) << "no screenshot at " << png;
  std::printf("screenshot: %s\n", png.c_str());
}

}  // namespace
}  // namespace stepdoctor
