// The registry is each rule's one definition: every registered rule has its docs row, a
// threshold test and, where it names a bottleneck, a verdict it can reach; a rule that cannot
// evaluate is recorded in the diagnostics while the others still run.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/verdict.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// "gpu_memory_near_full" -> "GpuMemoryNearFull": how a rule's tests are named.
std::string Camel(const std::string& id) {
  std::string out;
  bool up = true;
  for (char c : id) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

// The docs that list rules, one table row per rule id: "| `input_bound` |".
std::set<std::string> DocumentedIds() {
  std::set<std::string> ids;
  const std::regex row(R"(^\| `([a-z0-9_]+)`)");
  for (const char* doc : {"docs/rules.md", "docs/tensorflow.md", "docs/live.md"}) {
    std::string text = testing::ReadFileOrDie(testing::SourcePath(doc));
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, row)) ids.insert(m[1]);
  }
  return ids;
}

// Every "TEST(Suite, Name)" under tests/, as "Suite.Name".
std::vector<std::string> TestNames() {
  std::vector<std::string> names;
  const std::regex test(R"(\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\))");
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::SourcePath("tests"))) {
    if (!e.is_regular_file() || e.path().extension() != ".cc") continue;
    std::string text = testing::ReadFileOrDie(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), test), end; it != end; ++it)
      names.push_back((*it)[1].str() + "." + (*it)[2].str());
  }
  return names;
}

TEST(RuleRegistry, EveryRuleHasItsDocsRow) {
  std::set<std::string> documented = DocumentedIds();
  for (const RuleDef& r : AllRules()) EXPECT_TRUE(documented.count(r.id)) << r.id << " has no row in the docs";
}

// A rule's threshold tests carry its name, in a rule suite or named for the thresholds.
TEST(RuleRegistry, EveryRuleHasAThresholdTest) {
  std::vector<std::string> tests = TestNames();
  for (const RuleDef& r : AllRules()) {
    const std::string camel = Camel(r.id);
    bool found = false;
    const std::regex kind("Rule|Threshold|BothSides");
    for (const std::string& t : tests) found = found || (t.find(camel) != std::string::npos && std::regex_search(t, kind));
    EXPECT_TRUE(found) << r.id << ": no test named after " << camel;
  }
}

TEST(RuleRegistry, EveryRuleNamingABottleneckReachesItsVerdict) {
  for (const RuleDef& r : AllRules()) {
    if (r.bottleneck == Bottleneck::kUnknown) continue;
    for (FindingSeverity sev : {FindingSeverity::kModerate, FindingSeverity::kHigh}) {
      Finding f;
      f.id = r.id;
      f.severity = sev;
      f.title = "t";
      EXPECT_EQ(MakeVerdict({f}, nullptr).bottleneck, r.bottleneck) << r.id;
    }
  }
}

// A verdict the docs promise is one some rule can give.
TEST(RuleRegistry, EveryBottleneckIsNamedByARule) {
  std::set<Bottleneck> named;
  for (const RuleDef& r : AllRules()) named.insert(r.bottleneck);
  for (Bottleneck b : {Bottleneck::kInput, Bottleneck::kHost, Bottleneck::kDeviceCompute, Bottleneck::kCommunication})
    EXPECT_TRUE(named.count(b)) << BottleneckName(b) << " is named by no rule";
}

TEST(RuleRegistry, BottleneckOfFindingReadsTheRegistry) {
  EXPECT_EQ(BottleneckOfFinding("input_bound"), Bottleneck::kInput);
  EXPECT_EQ(BottleneckOfFinding("memory_pressure"), Bottleneck::kUnknown);
  EXPECT_EQ(BottleneckOfFinding("no_such_rule"), Bottleneck::kUnknown);
}

std::optional<Finding> AlwaysFires(const Signals&) {
  Finding f;
  f.id = "always";
  f.severity = FindingSeverity::kModerate;
  return f;
}
RuleResult Fails(const Signals&) { return RuleResult(ErrorCode::kInternal, "signal out of range"); }

TEST(RuleRegistry, AFailingRuleIsRecordedAndTheOthersStillRun) {
  std::vector<RuleDef> rules = {{.id = "always", .summary = "fires", .evaluate = &Infallible<AlwaysFires>},
                                {.id = "broken", .summary = "fails", .evaluate = &Fails},
                                {.id = "after", .summary = "fires", .evaluate = &Infallible<AlwaysFires>}};
  std::vector<std::string> diagnostics;
  std::vector<Finding> found = RunRules(rules, Signals{}, &diagnostics);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, "always");
  EXPECT_EQ(found[1].id, "after");  // reported under its registered id, said so in diagnostics
  ASSERT_EQ(diagnostics.size(), 2u);
  EXPECT_EQ(diagnostics[0], "rule broken could not evaluate: signal out of range");
  EXPECT_EQ(diagnostics[1], "rule after produced finding id always");
}

}  // namespace
}  // namespace stepdoctor
