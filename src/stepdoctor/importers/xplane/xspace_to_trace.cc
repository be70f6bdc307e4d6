#include "stepdoctor/importers/xplane/xspace_to_trace.h"

#include <google/protobuf/arena.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "stepdoctor/importers/xplane/xplane_pb_decoder.h"
#include "stepdoctor/importers/xplane/xplane_to_trace.h"
#include "stepdoctor/importers/xplane/xplane_wire_decoder.h"
#include "stepdoctor/importers/xplane/xspace_reader.h"
#include "stepdoctor/proto/xplane.pb.h"

namespace stepdoctor {
namespace {

namespace pb = ::stepdoctor::xplane;

constexpr size_t kMaxProfilerMessages = 5;  // XSpace errors/warnings noted; the rest counted

// What converting one plane may change in the trace, kept to undo it: the in-place decoder
// finds a bad byte in a line only as it converts it. (Strings interned meanwhile stay: no
// output depends on which strings the pool holds beyond those the trace refers to.)
class TraceMark {
 public:
  TraceMark(const Trace& t, const xplane::XSpaceState& s)
      : timelines_(t.timelines.size()), devices_(t.devices), diagnostics_(t.diagnostics), state_(s) {
    counter_sizes_.reserve(t.counters.size());
    for (const CounterSeries& c : t.counters) counter_sizes_.push_back(c.ts_ns.size());
  }
  void Undo(Trace& t, xplane::XSpaceState& s) {
    t.timelines.erase(t.timelines.begin() + static_cast<ptrdiff_t>(timelines_), t.timelines.end());
    t.counters.erase(t.counters.begin() + static_cast<ptrdiff_t>(counter_sizes_.size()), t.counters.end());
    for (size_t i = 0; i < counter_sizes_.size(); ++i) {
      t.counters[i].ts_ns.resize(counter_sizes_[i]);
      t.counters[i].value.resize(counter_sizes_[i]);
    }
    t.devices = std::move(devices_);
    t.diagnostics = std::move(diagnostics_);
    s = std::move(state_);
  }

 private:
  size_t timelines_;
  std::vector<size_t> counter_sizes_;
  std::vector<Device> devices_;
  ImportDiagnostics diagnostics_;
  xplane::XSpaceState state_;
};

std::string StemOf(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (std::string_view suf : {".xplane.pb", ".xspace.pb", ".xspace", ".pb"})
    if (base.size() > suf.size() && base.compare(base.size() - suf.size(), suf.size(), suf) == 0)
      return base.substr(0, base.size() - suf.size());
  return base;
}

}  // namespace

XPlaneDecoder ResolveXPlaneDecoder(XPlaneDecoder requested) {
  if (requested != XPlaneDecoder::kAuto) return requested;
  if (const char* env = std::getenv("STEPDOCTOR_XPLANE_DECODER")) {
    if (std::strcmp(env, "protobuf") == 0) return XPlaneDecoder::kProtobuf;
    if (std::strcmp(env, "wire") == 0) return XPlaneDecoder::kWire;
  }
  return XPlaneDecoder::kWire;  // measured: docs/performance.md, "XPlane import"
}

Status ImportXSpace(ByteSource& src, Trace& trace, const XSpaceImportOptions& opts) {
  Worker w;
  w.hostname = StemOf(src.name());
  w.source_path = src.name();
  WorkerId wid = trace.AddWorker(std::move(w));
  trace.sources.push_back(src.name());

  xplane::XSpaceReader reader(src);
  const bool use_wire = ResolveXPlaneDecoder(opts.decoder) == XPlaneDecoder::kWire;
  xplane::XSpaceState state;
  xplane::PlaneConverter<xplane::PbDecoder> pb_conv(trace, wid, state);
  xplane::PlaneConverter<xplane::WireDecoder> wire_conv(trace, wid, state);
  xplane::WirePlane wire_plane;
  google::protobuf::Arena arena;
  size_t planes = 0, bad_planes = 0, messages = 0;
  std::string hostname;
  bool corrupt = false, truncated = false;
  for (;;) {
    uint32_t field = 0;
    std::string_view bytes;
    auto next = reader.Read(&field, &bytes);
    if (!next.ok()) return next.status();
    if (*next == xplane::XSpaceReader::Next::kEnd) break;
    if (*next == xplane::XSpaceReader::Next::kTruncated) {
      truncated = true;
      break;
    }
    if (*next == xplane::XSpaceReader::Next::kCorrupt) {
      corrupt = true;
      break;
    }
    switch (field) {
      case xplane::kXSpacePlanes: {
        // Either decoder refuses exactly the planes libprotobuf cannot parse, at most 2 GiB
        // each: a larger or malformed plane is reported, not misread.
        bool decoded = false;
        if (bytes.size() > INT32_MAX) {
        } else if (use_wire) {
          decoded = wire_plane.Index(bytes);
          if (decoded && !xplane::ClassifyPlane(wire_plane.name).keep) {
            decoded = xplane::wire::CheckMessage(bytes, xplane::wire::Message::kPlane);  // not converted
          } else if (decoded) {
            // The lines are checked as they are converted: a bad byte in one undoes the plane.
            TraceMark mark(trace, state);
            wire_conv.Convert(wire_plane);
            if (wire_plane.bad) {
              mark.Undo(trace, state);
              decoded = false;
            }
          }
        } else {
          auto* plane = google::protobuf::Arena::CreateMessage<pb::XPlane>(&arena);
          decoded = plane->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
          if (decoded) pb_conv.Convert(*plane);
          arena.Reset();  // one plane's proto at a time
        }
        if (decoded) {
          ++planes;
        } else {
          ++bad_planes;
          trace.diagnostics.Note(ImportIssue::kCorruptRecord, src.name() + ": XPlane at byte " +
                                                                  std::to_string(reader.offset()) + " does not decode");
        }
        if (opts.progress) opts.progress(src.consumed(), src.total());
        break;
      }
      case xplane::kXSpaceHostnames:
        if (hostname.empty()) hostname.assign(bytes);
        break;
      case xplane::kXSpaceErrors:
      case xplane::kXSpaceWarnings:
        if (messages++ < kMaxProfilerMessages)
          trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                                 src.name() + ": the profiler reported: " + std::string(bytes.substr(0, 200)));
        break;
      default:
        break;  // a field a newer profiler added
    }
  }
  if (src.truncated()) truncated = true;
  if (planes == 0 && (corrupt || truncated || bad_planes > 0))
    return Status(ErrorCode::kCorruptInput, src.name() + ": not a readable XPlane profile (" +
                                                (truncated ? "the file ends inside its first plane"
                                                           : "bytes at offset " + std::to_string(reader.offset()) +
                                                                 " are not protobuf") +
                                                ")");
  if (truncated)
    trace.diagnostics.Note(ImportIssue::kTruncatedInput,
                           src.name() + ": the file ends early at byte " + std::to_string(reader.offset()) +
                               "; the planes before the cut were read");
  if (corrupt)
    trace.diagnostics.Note(ImportIssue::kCorruptRecord, src.name() + ": unreadable bytes at offset " +
                                                            std::to_string(reader.offset()) + "; the rest was skipped");
  if (state.aggregated)
    trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                           src.name() + ": " + std::to_string(state.aggregated) +
                               " aggregated XPlane events (no start time) not placed on timelines");
  if (!hostname.empty()) trace.workers[wid.v].hostname = hostname;
  bool jax = state.saw_jax && !state.saw_tf;
  trace.format = jax ? "xplane (jax)" : "xplane (tensorflow)";
  trace.framework = jax ? Framework::kJax : Framework::kTensorFlow;
  trace.Finalize();
  return Status::Ok();
}

}  // namespace stepdoctor
