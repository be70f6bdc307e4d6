#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"

namespace stepdoctor::testing {
namespace {

// Every temporary file a test makes (MakeTempDir, ::testing::TempDir(), TMPDIR for the CLI it
// runs) lands in one folder per test process, removed when the tests end: a run leaves nothing
// behind in /tmp. STEPDOCTOR_KEEP_TEST_TMP=1 keeps it for a look after a failure.
class TempRoot : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string base = ::testing::TempDir();  // TEST_TMPDIR, TMPDIR or /tmp/, with a '/'
    std::string tmpl = base + "sd_tests_XXXXXX";
    if (!mkdtemp(tmpl.data())) return;  // tests then use the base folder as before
    root_ = tmpl;
    setenv("TEST_TMPDIR", root_.c_str(), 1);
    setenv("TMPDIR", root_.c_str(), 1);
  }
  void TearDown() override {
    if (root_.empty()) return;
    const char* keep = std::getenv("STEPDOCTOR_KEEP_TEST_TMP");
    if (keep && *keep == '1') {
      std::fprintf(stderr, "test files kept in %s\n", root_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

 private:
  std::string root_;
};

[[maybe_unused]] ::testing::Environment* const kTempRoot = ::testing::AddGlobalTestEnvironment(new TempRoot);

}  // namespace

Trace ImportChrome(const std::string& json) {
  Trace t;
  auto src = MemorySource(json, "inline.json");
  Status st = ImportChromeJson(*src, t, nullptr, {});
  EXPECT_TRUE(st.ok()) << st.message();
  return t;
}

Status ImportText(const std::string& text, const std::string& name, Trace* t, InputFormat* format) {
  auto src = OpenMaybeCompressed(text, name);
  ImportedFile info;
  Status st = ImportSource(*src, *t, {}, &info);
  if (format) *format = info.format;
  return st;
}

EventKind KindOf(const Trace& t, const std::string& name) {
  for (const auto& tl : t.timelines)
    for (size_t i = 0; i < tl.ev.size(); ++i)
      if (t.str(tl.ev.name[i]) == name) return tl.ev.kind[i];
  ADD_FAILURE() << "no event " << name;
  return EventKind::kCount_;
}

const CounterSeries* FindCounter(const Trace& t, const std::string& name) {
  for (const auto& c : t.counters)
    if (c.name == name) return &c;
  return nullptr;
}

std::string NotesOf(const Trace& t) {
  std::string s;
  for (const auto& [issue, note] : t.diagnostics.notes()) s += note + "\n";
  return s;
}

bool AnyNoteContains(const Trace& t, const std::string& part) { return NotesOf(t).find(part) != std::string::npos; }

std::string CorpusPath(const std::string& rel) {
  const char* env = std::getenv("STEPDOCTOR_CORPUS");
  std::filesystem::path root = env ? env : std::string(STEPDOCTOR_SOURCE_DIR) + "/../shared/corpus";
  std::filesystem::path p = root / rel;
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return "";
  return std::filesystem::weakly_canonical(p, ec).string();
}

std::string SharedPath(const std::string& rel) {
  std::filesystem::path p = std::filesystem::path(STEPDOCTOR_SOURCE_DIR) / ".." / "shared" / rel;
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return "";
  return std::filesystem::weakly_canonical(p, ec).string();
}

std::string SourcePath(const std::string& rel) { return std::string(STEPDOCTOR_SOURCE_DIR) + "/" + rel; }

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliResult RunCli(const std::string& args, const std::string& env) {
  char out_tmpl[] = "/tmp/sd_out_XXXXXX";
  char err_tmpl[] = "/tmp/sd_err_XXXXXX";
  int fo = mkstemp(out_tmpl), fe = mkstemp(err_tmpl);
  close(fo);
  close(fe);
  std::string cmd = std::string("cd '") + STEPDOCTOR_SOURCE_DIR + "' && " + env + " " + STEPDOCTOR_CLI_PATH + " " + args + " >" + out_tmpl + " 2>" + err_tmpl + " </dev/null";
  int rc = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = ReadFileOrDie(out_tmpl);
  r.err = ReadFileOrDie(err_tmpl);
  std::remove(out_tmpl);
  std::remove(err_tmpl);
  return r;
}

std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = ::testing::TempDir() + prefix + "_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
  return tmpl;
}

const Finding* FindFinding(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string EvidenceText(const Finding& f) {
  std::string s;
  for (const auto& e : f.evidence) s += e.label + ": " + e.value + "\n";
  return s;
}

StepSignals StepsFromMs(std::vector<double> ms) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = int(ms.size());
  s.step_ms = ms;
  for (size_t i = 0; i < ms.size(); ++i) s.step_numbers.push_back(int64_t(i + 1));
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  s.median_step_ms = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                       : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  double total = 0;
  for (double v : ms) total += v;
  s.mean_step_ms = ms.empty() ? 0 : total / double(ms.size());
  for (size_t i = 0; i < ms.size(); ++i)
    if (ms[i] > s.median_step_ms * kOutlierStepFactor) s.outlier_steps.push_back(i);
  return s;
}

}  // namespace stepdoctor::testing
