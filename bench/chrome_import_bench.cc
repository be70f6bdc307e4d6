// Chrome-trace import + diagnose throughput, beside the floor set by the bytes themselves.
//
//   build/bench/chrome_import_bench [TRACE.json[.gz]] [--repeat N] [--scale K]
//
// Default input: the corpus's largest Chrome trace (hta-testdata/df_index_resolver, 53.7 MB of
// JSON). --scale K concatenates the events K times (shifted in time) to test larger inputs.
// Reports MB/s of uncompressed JSON on one core for:
//   zlib inflate (in process) and `zcat` (the command)  - the cost of reading .gz at all
//   bare simdjson On-Demand scan of every event's name/ts/dur - the parsing floor
//   stepdoctor import (plain JSON in memory), import+diagnose, import from .gz
// Best of --repeat runs (default 5).
#include <simdjson.h>
#include <zlib.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "bench_util.h"
#include "stepdoctor/io/byte_source.h"

using namespace stepdoctor;
using Clock = std::chrono::steady_clock;

namespace {

using stepdoctor::bench::BareScan;
using stepdoctor::bench::BestSeconds;

std::string ReadFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(2);
  }
  std::string s;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::string Gunzip(const std::string& gz) {
  auto src = OpenMaybeCompressed(gz, "bench");
  auto all = ReadAll(*src, size_t(1) << 40);
  return all.ok() ? std::move(all).value() : std::string();
}

std::string Scale(const std::string& json, int k) {
  if (k <= 1) return json;
  size_t open = json.find("\"traceEvents\"");
  open = json.find('[', open);
  size_t close = json.rfind(']');
  std::string head = json.substr(0, open + 1), body = json.substr(open + 1, close - open - 1), tail = json.substr(close);
  std::string out = head;
  for (int i = 0; i < k; ++i) out += (i ? "," : "") + body;
  return out + tail;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int repeat = 5, scale = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--scale" && i + 1 < argc) scale = std::atoi(argv[++i]);
    else path = a;
  }
  if (path.empty()) path = std::string(STEPDOCTOR_BENCH_CORPUS) + "/hta-testdata/df_index_resolver/df_index_resolver.json.gz";
  std::string raw = ReadFile(path);
  bool gz = raw.size() > 2 && uint8_t(raw[0]) == 0x1f && uint8_t(raw[1]) == 0x8b;
  std::string json = Scale(gz ? Gunzip(raw) : raw, scale);
  double mb = json.size() / 1e6;
  std::printf("input: %s (%s%.1f MB of JSON, scale %d), best of %d\n", path.c_str(), gz ? "gzip, " : "", mb, scale,
              repeat);

  auto report = [&](const char* what, double s) { std::printf("  %-40s %8.3f s %9.1f MB/s\n", what, s, mb / s); };
  if (gz && scale == 1) {
    report("zlib inflate (in process)", BestSeconds(repeat, [&] { Gunzip(raw); }));
    std::string cmd = "zcat '" + path + "' > /dev/null";
    report("zcat (command)", BestSeconds(repeat, [&] { (void)std::system(cmd.c_str()); }));
  }
  if (json.size() < (size_t(4) << 30)) {
    simdjson::padded_string padded(json);
    report("bare simdjson On-Demand scan", BestSeconds(repeat, [&] { BareScan(padded); }));
  } else {
    std::printf("  %-40s n/a: past simdjson's 4 GiB document limit\n", "bare simdjson On-Demand scan");
  }
  size_t events = 0;
  report("stepdoctor import (plain JSON)", BestSeconds(repeat, [&] {
           Trace t;
           auto src = MemorySource(json, "bench.json");
           (void)ImportChromeJson(*src, t);
           events = t.EventCount();
         }));
  report("stepdoctor import + diagnose", BestSeconds(repeat, [&] {
           Trace t;
           auto src = MemorySource(json, "bench.json");
           (void)ImportChromeJson(*src, t);
           Report r = AnalyzeTrace(t);
           if (r.steps.count < 0) std::abort();
         }));
  if (gz && scale == 1)
    report("stepdoctor import + diagnose from .gz", BestSeconds(repeat, [&] {
             Trace t;
             auto src = OpenMaybeCompressed(raw, "bench.json.gz");
             (void)ImportSource(*src, t, {});
             AnalyzeTrace(t);
           }));
  std::printf("events kept: %zu\n", events);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("max RSS: %.0f MB (the input held in memory included)\n", u.ru_maxrss / 1024.0);
  return 0;
}
