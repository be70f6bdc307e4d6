// The Markdown report: verdict, findings table, breakdown, steps and devices, with trace text
// escaped so a kernel name cannot break a table or inject markup into a PR comment.
#include <gtest/gtest.h>

#include "render/sample_report.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

TEST(RenderMarkdown, HasVerdictFindingsBreakdownStepsDevices) {
  std::string md = RenderMarkdown(testing::SampleReport(), {});
  EXPECT_EQ(md.rfind("## stepdoctor: input-bound: 31.2% of each 150 ms step waits on the DataLoader", 0), 0u) << md;
  EXPECT_NE(md.find("**Bottleneck:** `input`"), std::string::npos);
  EXPECT_NE(md.find("| Severity | Finding | Share of step | Possible gain |"), std::string::npos);
  EXPECT_NE(md.find("| **high** | 31.2% of each step waits on the DataLoader `input_bound` | 31.2% |"), std::string::npos);
  EXPECT_NE(md.find("| device\\_compute | 89.2 | 59.5% |"), std::string::npos);
  EXPECT_NE(md.find("6 steps from ProfilerStep\\#N markers: median **150 ms**"), std::string::npos);
  EXPECT_NE(md.find("Outliers: 21."), std::string::npos);
  EXPECT_NE(md.find("| worker0 | GPU 0 (Tesla V100-SXM2-32GB) | 59.5% |"), std::string::npos);
  EXPECT_NE(md.find("```python\nloader = DataLoader("), std::string::npos);  // fixes in fenced code
}

TEST(RenderMarkdown, EscapesTraceText) {
  std::string md = RenderMarkdown(testing::SampleReport(), {});
  // A '|' inside a code span is escaped so the table keeps its columns; < > stay literal there.
  EXPECT_NE(md.find("| `kernel\\|with\\|pipes & <angle>` |"), std::string::npos) << md;
  EXPECT_NE(md.find("negative duration &lt;bad&gt;"), std::string::npos);
  for (size_t at = md.find("\n|"); at != std::string::npos; at = md.find("\n|", at + 1)) {
    std::string line = md.substr(at + 1, md.find('\n', at + 1) - at - 1);
    EXPECT_EQ(line.back(), '|') << line;
  }
}

TEST(RenderMarkdown, EmptyReport) {
  std::string md = RenderMarkdown(Report{}, {});
  EXPECT_NE(md.find("No findings."), std::string::npos);
  EXPECT_NE(md.find("No steps found."), std::string::npos);
}

TEST(RenderTable, KnowsMarkdownAndHtml) {
  EXPECT_EQ(FindRenderer("md"), &RenderMarkdown);
  EXPECT_EQ(FindRenderer("html"), &RenderHtml);
}

}  // namespace
}  // namespace stepdoctor
