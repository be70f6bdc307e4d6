// Every Chrome-trace input shape, end to end, beside the floors set by the bytes themselves.
//
//   build/bench/input_shapes_bench [--mb N] [--repeat N] [--tmp DIR] [--keep] [--only SHAPE]
//   build/bench/input_shapes_bench --mb 10240 --write-kineto FILE
//
// --keep leaves the generated files in DIR (stepdoctor_bench_SHAPE.json[.gz]), e.g. to measure
// peak RSS with /usr/bin/time -v; --only runs one shape. --write-kineto only writes the kineto
// shape of --mb MB to FILE, streamed (for traces larger than memory), and measures nothing.
// Generates, from the corpus (../shared/corpus, read in place), about N MB (default 64) of JSON
// of each shape issue 13 names, into DIR (default /tmp), plain and gzipped (zlib level 6):
//   kineto      a Kineto trace with large args (hta-testdata df_index_resolver, repeated with
//               times shifted by its span)
//   legacy      the legacy autograd profiler's bare array of tiny events (generated: CPU ops,
//               CUDA kernels and their flow events, as export_chrome_trace writes them)
//   tf          a TensorFlow profiler trace.json.gz (smdebug's, repeated and shifted)
//   horovod     a Horovod timeline (smdebug's, repeated and shifted; the array never closed)
// and measures in the same run, best of --repeat (default 3), MB/s of uncompressed JSON:
//   zlib inflate           GzipSource over the .gz in memory (streaming, one core)
//   libdeflate inflate     InflateGzipWhole over the same bytes
//   bare scan              simdjson On-Demand over the JSON, touching every event's name/ts/dur
//   diagnose .json         `stepdoctor diagnose --format json` on the plain file (the command)
//   diagnose .gz (zlib)    the same on the .gz with STEPDOCTOR_INFLATE=zlib
//   diagnose .gz (ld)      the same with STEPDOCTOR_INFLATE=libdeflate (the default)
// then the ratios the targets are stated in: diagnose/bare scan (target >= 0.5),
// diagnose .gz / inflate alone (target >= 0.9), libdeflate/zlib. Speed targets live here,
// never in tests.
#include <simdjson.h>
#include <zlib.h>

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/io/whole_gzip.h"

using namespace stepdoctor;
using Clock = std::chrono::steady_clock;

namespace {

using stepdoctor::bench::BareScan;
using stepdoctor::bench::BestSeconds;

std::string ReadFile(const std::string& path) {
  auto src = OpenMaybeCompressed(path, GzipInflater::kZlib);
  if (!src.ok()) {
    std::fprintf(stderr, "%s\n", src.message().c_str());
    std::exit(2);
  }
  auto all = ReadAll(**src, size_t(1) << 34);
  if (!all.ok()) std::exit(2);
  return std::move(all).value();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::perror(path.c_str());
    std::exit(2);
  }
  std::fclose(f);
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = uInt(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Adds `shift` to the integer part of every "ts": number in `events` (text between the array's
// brackets), so repeated copies follow one another in time.
std::string ShiftTs(const std::string& events, int64_t shift) {
  std::string out;
  out.reserve(events.size() + events.size() / 50);
  size_t i = 0;
  for (;;) {
    size_t k = events.find("\"ts\"", i);
    if (k == std::string::npos) break;
    size_t p = k + 4;
    while (p < events.size() && (events[p] == ' ' || events[p] == ':')) ++p;
    size_t q = p;
    while (q < events.size() && events[q] >= '0' && events[q] <= '9') ++q;
    out.append(events, i, p - i);
    if (q > p) {
      out += std::to_string(std::stoll(events.substr(p, q - p)) + shift);
    }
    i = q;
  }
  out.append(events, i, std::string::npos);
  return out;
}

// Repeats the events of `json` (an object with traceEvents, or a bare array) until about
// `target` bytes, each copy shifted by `span_us`.
std::string Repeat(const std::string& json, size_t target, int64_t span_us, bool close_array) {
  size_t open = json.find("\"traceEvents\"");
  open = json.find('[', open == std::string::npos ? 0 : open);
  size_t close = json.rfind(']');
  if (close < open) close = json.size();
  std::string head = json.substr(0, open + 1), body = json.substr(open + 1, close - open - 1);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\n' || body.back() == ',')) body.pop_back();
  std::string tail = close < json.size() ? json.substr(close) : "]";
  std::string out = head;
  for (int64_t i = 0; out.size() < target; ++i) out += (i ? ",\n" : "") + (i ? ShiftTs(body, i * span_us) : body);
  return close_array ? out + tail : out + "\n";
}

// Repeat() streamed to `path`: the same bytes, one copy in memory at a time. Returns the size.
size_t WriteRepeated(const std::string& path, const std::string& json, size_t target, int64_t span_us) {
  size_t open = json.find("\"traceEvents\"");
  open = json.find('[', open == std::string::npos ? 0 : open);
  size_t close = json.rfind(']');
  if (close < open) close = json.size();
  std::string body = json.substr(open + 1, close - open - 1);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\n' || body.back() == ',')) body.pop_back();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::perror(path.c_str()), std::exit(2);
  size_t out = 0;
  auto put = [&](const std::string& s) {
    if (std::fwrite(s.data(), 1, s.size(), f) != s.size()) std::perror(path.c_str()), std::exit(2);
    out += s.size();
  };
  put(json.substr(0, open + 1));
  for (int64_t i = 0; out < target; ++i) put((i ? ",\n" : "") + (i ? ShiftTs(body, i * span_us) : body));
  put(close < json.size() ? json.substr(close) : "]");
  if (std::fclose(f) != 0) std::perror(path.c_str()), std::exit(2);
  return out;
}

std::string Legacy(size_t target) {
  // torch.autograd.profiler's export_chrome_trace: a bare array, ts/dur in float microseconds,
  // pid "CPU functions"/"CUDA functions", a flow pair from each launch to its kernel.
  static const char* kOps[] = {"aten::empty", "aten::add", "aten::mul", "aten::conv2d", "aten::relu", "aten::view"};
  std::string out = "[";
  char buf[512];
  for (int64_t i = 0; out.size() < target; ++i) {
    double ts = 1000.0 + i * 3.25;
    int n = std::snprintf(buf, sizeof buf,
                          "%s{\"name\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"tid\": 0, \"pid\": \"CPU "
                          "functions\", \"args\": {}}",
                          i ? ", " : "", kOps[i % 6], ts, 1.5 + (i % 5));
    out.append(buf, size_t(n));
    if (i % 4 == 0) {
      n = std::snprintf(buf, sizeof buf,
                        ", {\"name\": \"%s\", \"ph\": \"s\", \"ts\": %.3f, \"tid\": 0, \"pid\": \"CPU functions\", "
                        "\"id\": %lld, \"cat\": \"async\", \"args\": {}}, {\"name\": \"%s\", \"ph\": \"f\", \"ts\": %.3f, "
                        "\"tid\": 0, \"pid\": \"CUDA functions\", \"id\": %lld, \"cat\": \"async\", \"args\": {}}, "
                        "{\"name\": \"%s_kernel\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"tid\": 0, \"pid\": "
                        "\"CUDA functions\", \"args\": {}}",
                        kOps[i % 6], ts, (long long)i, kOps[i % 6], ts + 2, (long long)i, kOps[i % 6], ts + 2, 2.0);
      out.append(buf, size_t(n));
    }
  }
  return out + "]";
}

// Span of a trace in microseconds, from its "ts" fields (to shift copies past one another).
int64_t SpanUs(const std::string& json) {
  int64_t lo = INT64_MAX, hi = 0;
  for (size_t k = json.find("\"ts\""); k != std::string::npos; k = json.find("\"ts\"", k + 4)) {
    size_t p = k + 4;
    while (p < json.size() && (json[p] == ' ' || json[p] == ':')) ++p;
    int64_t v = std::atoll(json.c_str() + p);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return hi > lo ? hi - lo + 1000 : 1000000;
}

size_t ZlibInflate(const std::string& gz) {
  auto src = GzipSource(MemorySource(gz, "bench.gz"));
  static std::vector<char> buf(1 << 20);
  size_t total = 0;
  for (;;) {
    auto r = src->Read(buf.data(), buf.size());
    if (!r.ok() || *r == 0) break;
    total += *r;
  }
  return total;
}

void Diagnose(const std::string& path, const char* inflater) {
  std::string cmd = std::string("STEPDOCTOR_INFLATE=") + inflater + " '" + STEPDOCTOR_BENCH_CLI +
                    "' diagnose --format json '" + path + "' > /dev/null";
  int rc = std::system(cmd.c_str());
  if (!WIFEXITED(rc) || WEXITSTATUS(rc) > 1) {
    std::fprintf(stderr, "failed: %s\n", cmd.c_str());
    std::exit(2);
  }
}

struct Shape {
  const char* name;
  std::string json;
};

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 64;
  int repeat = 3;
  std::string tmp = "/tmp";
  bool keep = false;
  std::string only, write_kineto;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mb" && i + 1 < argc) mb = size_t(std::atol(argv[++i]));
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--tmp" && i + 1 < argc) tmp = argv[++i];
    else if (a == "--keep") keep = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--write-kineto" && i + 1 < argc) write_kineto = argv[++i];
  }
  const size_t target = mb << 20;
  const std::string corpus = STEPDOCTOR_BENCH_CORPUS;
  if (!write_kineto.empty()) {
    // Only write the kineto shape, copy by copy (never whole in memory): a trace of any size
    // for `stepdoctor diagnose` under /usr/bin/time.
    std::string k = ReadFile(corpus + "/hta-testdata/df_index_resolver/df_index_resolver.json.gz");
    const size_t written = WriteRepeated(write_kineto, k, target, SpanUs(k));
    std::printf("wrote %s: %.1f MB\n", write_kineto.c_str(), written / 1e6);
    return 0;
  }
  std::vector<Shape> shapes;
  auto want = [&](const char* name) { return only.empty() || only == name; };
  if (want("kineto")) {
    std::string k = ReadFile(corpus + "/hta-testdata/df_index_resolver/df_index_resolver.json.gz");
    shapes.push_back({"kineto", Repeat(k, target, SpanUs(k), true)});
  }
  if (want("legacy")) shapes.push_back({"legacy", Legacy(target)});
  if (want("tf")) {
    std::string t = ReadFile(corpus + "/smdebug/tfprofiler_local_missing_metadata/framework/tensorflow/"
                              "detailed_profiling/2020080513/000000000/plugins/profile/2020_08_05_13_37_44/"
                              "ip-172-31-19-241.trace.json.gz");
    shapes.push_back({"tf", Repeat(t, target, SpanUs(t), true)});
  }
  if (want("horovod")) {
    std::string h = ReadFile(corpus + "/smdebug/horovod_timeline_traces/framework/pevents/2020070206/"
                              "1593673051473228_88359-8c859046be41.ant.amazon.com_horovod_timeline.json");
    shapes.push_back({"horovod", Repeat(h, target, SpanUs(h), false)});
  }

  std::printf("input_shapes_bench: ~%zu MB of JSON per shape, best of %d, MB/s of uncompressed JSON\n", mb, repeat);
  std::printf("%-8s %7s %6s | %8s %8s %8s | %8s %8s %8s | %6s %6s %6s %6s\n", "shape", "MB", "gz x", "zlib", "libdefl",
              "scan", "diag", "diag.gz", "diag.gz", "diag/", "gz.z/", "gz.ld/", "ld/");
  std::printf("%-8s %7s %6s | %8s %8s %8s | %8s %8s %8s | %6s %6s %6s %6s\n", "", "", "", "inflate", "inflate", "simdjson",
              ".json", "zlib", "libdefl", "scan", "zlib", "ld", "zlib");
  for (const Shape& s : shapes) {
    const double m = s.json.size() / 1e6;
    std::string gz = Gzip(s.json);
    std::string base = tmp + "/stepdoctor_bench_" + s.name;
    WriteFile(base + ".json", s.json);
    WriteFile(base + ".json.gz", gz);
    double t_zlib = BestSeconds(repeat, [&] { ZlibInflate(gz); });
    // The inflater's own speed, whatever the cap; past the cap diagnose streams through zlib.
    const bool over_cap = s.json.size() > kWholeInflateMaxBytes;
    double t_ld = BestSeconds(repeat, [&] { (void)InflateGzipWhole(gz, size_t(1) << 40); });
    simdjson::padded_string padded(s.json);
    double t_scan = BestSeconds(repeat, [&] { BareScan(padded); });
    double t_diag = BestSeconds(repeat, [&] { Diagnose(base + ".json", "libdeflate"); });
    double t_gz_z = BestSeconds(repeat, [&] { Diagnose(base + ".json.gz", "zlib"); });
    double t_gz_ld = BestSeconds(repeat, [&] { Diagnose(base + ".json.gz", "libdeflate"); });
    std::printf("%-8s %7.1f %6.1f | %8.0f %8.0f %8.0f | %8.0f %8.0f %8.0f | %6.2f %6.2f %6.2f %6.2f\n", s.name, m,
                double(s.json.size()) / double(gz.size()), m / t_zlib, m / t_ld, m / t_scan, m / t_diag, m / t_gz_z,
                m / t_gz_ld, t_scan / t_diag, t_zlib / t_gz_z, t_ld / t_gz_ld, t_zlib / t_ld);
    if (over_cap)
      std::printf("%-8s past kWholeInflateMaxBytes: diagnose of the .gz streams through zlib with either setting\n", "");
    std::fflush(stdout);
    if (!keep) {
      std::remove((base + ".json").c_str());
      std::remove((base + ".json.gz").c_str());
    }
  }
  std::printf("diag/scan: diagnose of the .json against the bare scan (target >= 0.5); gz.z/zlib and gz.ld/ld:\n"
              "diagnose of the .gz against that inflater alone (target >= 0.9); ld/zlib: libdeflate's speed-up.\n");
  return 0;
}
