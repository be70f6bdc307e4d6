// Summaries at scale: what `summarize` costs against reading the trace, how large a summary is
// against its trace, and how long `merge` takes over all of them.
//
//   build/bench/summary_bench DIR [--repeat 3]
//
// DIR holds the rank traces of one job (e.g. 64 made by scripts/synth_ranks.py from
// examples/ddp or a corpus rank). For each trace: the import alone, import + summary, and the
// summary's size; then the summaries written to a temp folder are read back and merged, as
// `stepdoctor merge` does. Goal (docs/distributed.md): summarize within 1.5x of the import,
// merge of 64 summaries under 1 s, a summary <= 1% of a 100 MB+ trace.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/summary/rank_summaries_to_report.h"
#include "stepdoctor/summary/summary_file.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"

namespace fs = std::filesystem;
using namespace stepdoctor;

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: summary_bench DIR [--repeat N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  int repeat = 3;
  if (argc >= 4 && std::string(argv[2]) == "--repeat") repeat = std::max(1, std::atoi(argv[3]));
  std::vector<std::string> traces;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && !IsSummaryPath(e.path().string()) && e.path().extension() != ".md" &&
        e.path().filename() != "truth.json")
      traces.push_back(e.path().string());
  std::sort(traces.begin(), traces.end());
  const fs::path out = fs::temp_directory_path() / fmt::format("sd_summary_bench_{}", ::getpid());
  fs::create_directories(out);
  double import_s = 0, summarize_s = 0;
  uint64_t trace_bytes = 0, raw_bytes = 0, summary_bytes = 0;
  std::vector<std::string> written;
  for (const std::string& t : traces) {
    uint64_t raw = 0;
    import_s += bench::BestSeconds(repeat, [&] {
      auto r = ImportPaths({t});
      if (r.ok() && !r->files.empty()) raw = r->files[0].bytes;
    });
    RankSummary kept;
    summarize_s += bench::BestSeconds(repeat, [&] {
      auto r = ImportPaths({t});
      if (!r.ok()) return;
      auto s = TraceToRankSummary(r->trace, t);
      if (s.ok()) kept = std::move(*s);
    });
    const std::string path = (out / (fs::path(t).filename().string() + ".sdsum")).string();
    if (!WriteSummaryFile(kept, path).ok()) continue;
    written.push_back(path);
    trace_bytes += fs::file_size(t);
    raw_bytes += raw;
    summary_bytes += fs::file_size(path);
  }
  std::string verdict;
  const double merge_s = bench::BestSeconds(repeat, [&] {
    std::vector<RankSummary> all;
    for (const auto& p : written)
      if (auto s = ReadSummaryFile(p); s.ok()) all.push_back(std::move(*s));
    if (!all.empty()) verdict = RankSummariesToReport(std::move(all)).verdict.summary;
  });
  fmt::print("{} traces, {:.1f} MB on disk, {:.1f} MB read (uncompressed)\n", written.size(), trace_bytes / 1e6,
             raw_bytes / 1e6);
  fmt::print("import alone      {:8.3f} s\n", import_s);
  fmt::print("import + summary  {:8.3f} s  ({:.2f}x the import)\n", summarize_s, summarize_s / std::max(import_s, 1e-9));
  fmt::print("summaries         {:8.1f} KB  ({:.2f}% of the traces on disk, {:.2f}% of what was read)\n",
             summary_bytes / 1e3, 100.0 * summary_bytes / std::max<uint64_t>(trace_bytes, 1),
             100.0 * summary_bytes / std::max<uint64_t>(raw_bytes, 1));
  fmt::print("merge {} summaries {:7.3f} s\n", written.size(), merge_s);
  fmt::print("verdict: {}\n", verdict);
  fs::remove_all(out);
  return 0;
}
