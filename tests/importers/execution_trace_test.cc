// PyTorch's execution trace (ExecutionTraceObserver, the Chakra input) holds operators and their
// dependencies but no times: named, it is refused saying what it is and what to read instead;
// in a folder beside the profiler's trace, it is skipped with that reason and the trace is read.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "inline_chrome.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

constexpr const char* kEt =
    "{\n  \"schema\": \"1.0.2-chakra.0.0.4\", \"pid\": 70610, \"time\": \"2024-04-09 08:56:19\", \"start_ts\": 1128488051,\n"
    "  \"nodes\": [\n    {\"id\": 2, \"name\": \"[pytorch|profiler|execution_trace|thread]\", \"ctrl_deps\": 1,\n"
    "     \"inputs\": {\"values\": [], \"shapes\": [], \"types\": []}, \"attrs\": []}]}\n";

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(ExecutionTrace, SaidForWhatItIsNamedOrInAFolder) {
  Trace t;
  const Status named = testing::ImportText(kEt, "pytorch_et.json", &t);
  EXPECT_EQ(named.code(), ErrorCode::kUnknownFormat);
  EXPECT_NE(named.message().find("a PyTorch execution trace (ExecutionTraceObserver"), std::string::npos) << named.message();
  // Other JSON keeps the general message.
  const Status other = testing::ImportText("{\"schema\": 1, \"rows\": []}", "x.json", &t);
  EXPECT_EQ(other.message().find("execution trace"), std::string::npos) << other.message();

  const std::string dir = testing::MakeTempDir("et");
  Write(dir + "/pytorch_et.json", kEt);
  std::string ev;
  for (int i = 0; i < 3; ++i) ev += testing::X("cpu_op", "aten::mm", 1, 1, i * 1000.0, 500);
  Write(dir + "/kineto_trace.json", testing::Doc(ev));
  auto r = ImportPaths({dir}, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->trace.EventCount(), 0u);
  EXPECT_TRUE(testing::AnyNoteContains(r->trace, "pytorch_et.json: a PyTorch execution trace")) << testing::NotesOf(r->trace);
}

}  // namespace
}  // namespace stepdoctor
