// libFuzzer target: any bytes as an XSpace through both XPlane decoders (in place, and
// libprotobuf's, the reference); the two Traces must be the same, event by event, and so must
// the status. A difference aborts, so libFuzzer keeps the input. See chrome_json_fuzzer.cc for
// how to build and run (seeds: fuzz/seeds/xplane).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "stepdoctor/importers/xplane/xspace_to_trace.h"
#include "stepdoctor/io/byte_source.h"

namespace {

using namespace stepdoctor;

// Everything the model keeps, as text (strings by their text: interning order may differ).
std::string Dump(const Status& st, const Trace& t) {
  std::string s = st.ok() ? "ok\n" : "error " + st.message() + "\n";
  s += t.format + "\n";
  for (const Device& d : t.devices)
    s += "device " + std::to_string(int(d.kind)) + " " + std::to_string(d.index) + " " + d.name + " " + d.vendor + " " +
         std::to_string(d.sm_count) + " " + std::to_string(d.memory_bytes) + "\n";
  for (const Timeline& tl : t.timelines) {
    s += "timeline " + std::to_string(tl.device.v) + " " + std::to_string(int(tl.kind)) + " " +
         std::to_string(tl.tid) + " " + tl.name + "\n";
    for (size_t i = 0; i < tl.ev.size(); ++i) {
      s += std::to_string(tl.ev.start_ns[i]) + " " + std::to_string(tl.ev.dur_ns[i]) + " " +
           std::string(t.str(tl.ev.name[i])) + " " + std::to_string(int(tl.ev.kind[i])) + " " +
           std::to_string(tl.ev.corr[i]);
      for (uint32_t k = 0; k < tl.ev.args_n[i]; ++k) {
        const Arg& a = tl.args[tl.ev.args_at[i] + k];
        char d[40];
        std::snprintf(d, sizeof d, "%a", a.d);
        s += " " + std::string(t.str(a.key)) + "=" + std::to_string(int(a.type)) + ":" + std::to_string(a.i) + ":" +
             d + ":" + std::string(t.str(a.s));
      }
      s += "\n";
    }
  }
  for (const CounterSeries& c : t.counters) {
    s += "counter " + c.name + " " + std::to_string(c.device.v);
    for (size_t i = 0; i < c.ts_ns.size(); ++i) s += " " + std::to_string(c.ts_ns[i]) + "=" + std::to_string(c.value[i]);
    s += "\n";
  }
  for (size_t i = 0; i < static_cast<size_t>(ImportIssue::kCount_); ++i)
    s += std::to_string(t.diagnostics.count(static_cast<ImportIssue>(i))) + " ";
  for (const auto& [issue, note] : t.diagnostics.notes()) s += "\n" + std::to_string(int(issue)) + " " + note;
  return s;
}

std::string ImportWith(std::string_view bytes, XPlaneDecoder d) {
  auto src = MemorySource(bytes, "fuzz.xplane.pb");
  Trace t;
  XSpaceImportOptions opts;
  opts.decoder = d;
  Status st = ImportXSpace(*src, t, opts);
  return Dump(st, t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string wire = ImportWith(bytes, XPlaneDecoder::kWire);
  const std::string reference = ImportWith(bytes, XPlaneDecoder::kProtobuf);
  if (wire != reference) {
    std::fprintf(stderr, "xplane decoders differ:\n--- wire\n%s\n--- libprotobuf\n%s\n", wire.c_str(),
                 reference.c_str());
    std::abort();
  }
  return 0;
}
