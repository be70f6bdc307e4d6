// XPlane import throughput: MB/s of ImportXSpace (stream planes, decode each, map to the Trace)
// on the largest corpus xplane, with each plane decoder in the same run: the wire bytes read in
// place (the default) and libprotobuf on an arena (the reference); against a bare libprotobuf
// parse of the whole XSpace into one message (what TensorBoard's tooling does first), and
// against reading the bytes.
//
// Run:   ninja -C build stepdoctor xplane_import_bench && build/bench/xplane_import_bench [FILE.xplane.pb] [REPEATS]
//        build/bench/xplane_import_bench FILE REPEATS wire|protobuf   imports with that decoder only
//        (nothing else measured: for a profiler).
// Prints one line per measurement: MB/s over the file size (best of REPEATS, default 20), plus
// events/s and the resident-set growth of one import.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "stepdoctor/importers/xplane/xplane_wire.h"
#include "stepdoctor/importers/xplane/xspace_reader.h"
#include "stepdoctor/importers/xplane/xspace_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/proto/xplane.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

long MaxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

template <typename F>
double BestSeconds(int repeats, F&& f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1]
                              : std::string(STEPDOCTOR_BENCH_CORPUS) +
                                    "/tf-profiler-demo/plugins/profile/GPU-multi-worker/34.83.195.179_6003.xplane.pb";
  int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  std::string bytes = ReadFile(path);
  if (bytes.empty()) {
    std::fprintf(stderr, "xplane_import_bench: cannot read %s\n", path.c_str());
    return 2;
  }
  const double mb = bytes.size() / 1e6;
  std::printf("file: %s (%.2f MB)\n", path.c_str(), mb);

  size_t events = 0;
  auto import_with = [&](stepdoctor::XPlaneDecoder d) {
    stepdoctor::Trace trace;
    auto src = stepdoctor::MemorySource(bytes, path);
    stepdoctor::XSpaceImportOptions opts;
    opts.decoder = d;
    stepdoctor::Status st = stepdoctor::ImportXSpace(*src, trace, opts);
    if (!st.ok()) std::fprintf(stderr, "import failed: %s\n", st.message().c_str());
    events = trace.EventCount();
  };
  if (argc > 3) {
    const std::string only = argv[3];
    auto d = only == "wire" ? stepdoctor::XPlaneDecoder::kWire : stepdoctor::XPlaneDecoder::kProtobuf;
    double t = BestSeconds(repeats, [&] { import_with(d); });
    std::printf("ImportXSpace, %s only  %8.1f MB/s  %6.2f M events/s\n", only.c_str(), mb / t, events / t / 1e6);
    return 0;
  }
  long rss0 = MaxRssKb();
  double t_wire = BestSeconds(repeats, [&] { import_with(stepdoctor::XPlaneDecoder::kWire); });
  long rss1 = MaxRssKb();
  double t_pb = BestSeconds(repeats, [&] { import_with(stepdoctor::XPlaneDecoder::kProtobuf); });
  double t_file = BestSeconds(repeats, [&] {
    stepdoctor::Trace trace;
    auto src = stepdoctor::OpenMaybeCompressed(path);  // mapped, as diagnose opens it
    if (src.ok()) (void)stepdoctor::ImportXSpace(**src, trace);
  });
  double t_proto = BestSeconds(repeats, [&] {
    stepdoctor::xplane::XSpace space;
    space.ParseFromString(bytes);
  });
  // The wire format alone: every plane cut out and checked in full (every tag, varint and
  // length of every message, as the wire decoder reads them), no model built.
  double t_walk = BestSeconds(repeats, [&] {
    auto src = stepdoctor::MemorySource(bytes, path);
    stepdoctor::xplane::XSpaceReader reader(*src);
    uint32_t field = 0;
    std::string_view b;
    size_t bad = 0;
    for (;;) {
      auto next = reader.Read(&field, &b);
      if (!next.ok() || *next != stepdoctor::xplane::XSpaceReader::Next::kField) break;
      if (field == stepdoctor::xplane::kXSpacePlanes &&
          !stepdoctor::xplane::wire::CheckMessage(b, stepdoctor::xplane::wire::Message::kPlane))
        ++bad;
    }
    if (bad) std::fprintf(stderr, "%zu planes do not decode\n", bad);
  });
  double t_read = BestSeconds(repeats, [&] { (void)ReadFile(path); });

  std::printf("ImportXSpace, wire decoder      %8.1f MB/s  %6.2f M events/s  (%zu events, memory source)\n",
              mb / t_wire, events / t_wire / 1e6, events);
  std::printf("ImportXSpace, libprotobuf       %8.1f MB/s  %6.2f M events/s  (the reference, memory source)\n",
              mb / t_pb, events / t_pb / 1e6);
  std::printf("wire / libprotobuf              %8.2fx\n", t_pb / t_wire);
  std::printf("ImportXSpace (mapped file)      %8.1f MB/s  (the default decoder)\n", mb / t_file);
  std::printf("wire check only                 %8.1f MB/s  (every plane walked in full, no model)\n", mb / t_walk);
  std::printf("libprotobuf XSpace parse only   %8.1f MB/s  (no model, one message)\n", mb / t_proto);
  std::printf("read file into memory           %8.1f MB/s\n", mb / t_read);
  std::printf("max RSS growth, wire imports     %ld KB (file %.0f KB)\n", rss1 - rss0, bytes.size() / 1e3);
  return 0;
}
