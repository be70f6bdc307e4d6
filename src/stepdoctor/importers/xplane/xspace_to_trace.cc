#include "stepdoctor/importers/xplane/xspace_to_trace.h"

#include <google/protobuf/arena.h>

#include <array>
#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/xplane/xplane_classify.h"
#include "stepdoctor/importers/xplane/xspace_reader.h"
#include "stepdoctor/proto/xplane.pb.h"

namespace stepdoctor {
namespace {

namespace pb = ::stepdoctor::xplane;
using xplane::LineClass;

constexpr size_t kLineClasses = 6;
constexpr size_t kMaxProfilerMessages = 5;  // XSpace errors/warnings noted; the rest counted

// What we do with a stat, decided once per XStatMetadata.
enum class StatUse : uint8_t {
  kDrop,
  kKeep,         // kept as an arg under its TF name
  kCorrelation,  // becomes the event's corr
  kIteratorId,   // "id": kept on tf.data iterator events only (elsewhere it is noise)
};

StatUse UseOfStat(std::string_view n) {
  static constexpr std::string_view kKeep[] = {
      "step_num", "group_id", "tf_op", "kernel_details", "memcpy_details", "is_eager", "tf_function_call",
      "tracing_count", "bytes_allocated", "bytes_reserved", "peak_bytes_in_use", "fragmentation",
      "bytes_available", "requested_bytes", "allocation_bytes", "allocator_name", "region_type", "hlo_category",
      "hlo_op", "step_name", "iter_num", "element_id", "parent_id", "flops", "bytes_accessed", "model_flops",
      "long_name", "buffer_limit", "run_id"};
  if (n == "correlation_id") return StatUse::kCorrelation;
  if (n == "id") return StatUse::kIteratorId;
  for (auto k : kKeep)
    if (n == k) return StatUse::kKeep;
  return StatUse::kDrop;
}

struct StatInfo {
  StringId key;
  StatUse use = StatUse::kDrop;
};

struct MetaInfo {
  StringId name;
  std::string_view text;       // the interned name (the pool keeps it alive)
  bool iterator = false;       // a tf.data "Iterator::..." stage
  bool resolved_kinds = false;
  std::array<EventKind, kLineClasses> kind{};
  std::vector<Arg> args;       // kept stats of the metadata (TPU ops carry hlo_category, tf_op here)
  bool has_tpu_kind = false;
  EventKind tpu_kind = EventKind::kKernel;
};

std::string StemOf(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (std::string_view suf : {".xplane.pb", ".xspace.pb", ".xspace", ".pb"})
    if (base.size() > suf.size() && base.compare(base.size() - suf.size(), suf.size(), suf) == 0)
      return base.substr(0, base.size() - suf.size());
  return base;
}

class PlaneConverter {
 public:
  PlaneConverter(Trace& trace, WorkerId worker) : trace_(trace), worker_(worker) {}

  bool saw_jax() const { return saw_jax_; }
  bool saw_tf() const { return saw_tf_; }
  size_t aggregated_events() const { return aggregated_; }

  void Convert(const pb::XPlane& plane) {
    xplane::PlaneClass pc = xplane::ClassifyPlane(plane.name());
    if (!pc.keep) return;
    stats_.clear();
    for (const auto& [id, sm] : plane.stat_metadata())
      stats_[id] = StatInfo{trace_.strings.Intern(sm.name()), UseOfStat(sm.name())};
    plane_ = &plane;
    DeviceId dev = trace_.GetOrAddDevice(worker_, pc.kind, pc.index, plane.name());
    ReadPlaneStats(plane, dev);
    metas_.clear();
    metas_.reserve(plane.event_metadata_size());
    for (const auto& [id, em] : plane.event_metadata()) metas_.emplace(id, MakeMeta(em));
    for (const pb::XLine& line : plane.lines()) ConvertLine(line, pc.kind, dev);
    plane_ = nullptr;
  }

 private:
  const StatInfo* FindStat(int64_t id) const {
    auto it = stats_.find(id);
    return it == stats_.end() ? nullptr : &it->second;
  }

  // An XStat as an Arg; false for values we do not keep (bytes).
  bool ToArg(const pb::XStat& st, StringId key, Arg* out) {
    out->key = key;
    switch (st.value_case()) {
      case pb::XStat::kDoubleValue: out->type = ArgType::kDouble; out->d = st.double_value(); return true;
      case pb::XStat::kUint64Value: out->type = ArgType::kInt; out->i = static_cast<int64_t>(st.uint64_value()); return true;
      case pb::XStat::kInt64Value: out->type = ArgType::kInt; out->i = st.int64_value(); return true;
      case pb::XStat::kStrValue: out->type = ArgType::kString; out->s = trace_.strings.Intern(st.str_value()); return true;
      case pb::XStat::kRefValue: {
        // A ref names another XStatMetadata whose name is the value (interned strings in XPlane).
        const StatInfo* ref = FindStat(static_cast<int64_t>(st.ref_value()));
        out->type = ArgType::kString;
        out->s = ref ? ref->key : StringId{};
        return true;
      }
      default: return false;
    }
  }

  static int64_t IntOf(const pb::XStat& st) {
    switch (st.value_case()) {
      case pb::XStat::kUint64Value: return static_cast<int64_t>(st.uint64_value());
      case pb::XStat::kInt64Value: return st.int64_value();
      case pb::XStat::kDoubleValue: return RoundToInt64(st.double_value()).value_or(0);  // NaN or past int64: none
      default: return 0;
    }
  }

  void ReadPlaneStats(const pb::XPlane& plane, DeviceId dev) {
    Device& d = trace_.devices[dev.v];
    std::string type_string;
    for (const pb::XStat& st : plane.stats()) {
      const StatInfo* si = FindStat(st.metadata_id());
      if (!si) continue;
      std::string_view n = trace_.str(si->key);
      if (n == "core_count") d.sm_count = static_cast<int>(IntOf(st));
      else if (n == "memory_size") d.memory_bytes = IntOf(st);
      else if (n == "compute_cap_major") d.compute_major = static_cast<int>(IntOf(st));
      else if (n == "compute_cap_minor") d.compute_minor = static_cast<int>(IntOf(st));
      else if (n == "device_vendor" && st.value_case() == pb::XStat::kStrValue) d.vendor = st.str_value();
      else if (n == "device_type_string" && st.value_case() == pb::XStat::kStrValue) type_string = st.str_value();
    }
    if (d.kind == DeviceKind::kTpu) d.vendor = "google";
    if (d.kind == DeviceKind::kGpu) {
      if (d.vendor == "AMD" || d.vendor == "amd") d.vendor = "amd";
      else if (d.vendor.empty() || d.vendor == "Nvidia" || d.vendor == "NVIDIA") d.vendor = "nvidia";
    }
    if (!type_string.empty()) d.name = plane.name() + " (" + type_string + ")";
  }

  MetaInfo MakeMeta(const pb::XEventMetadata& em) {
    MetaInfo m;
    const std::string& name = em.name().empty() ? em.display_name() : em.name();
    m.name = trace_.strings.Intern(name);
    m.text = trace_.str(m.name);
    m.iterator = m.text.substr(0, 10) == "Iterator::";
    m.kind.fill(EventKind::kCount_);
    for (const pb::XStat& st : em.stats()) {
      const StatInfo* si = FindStat(st.metadata_id());
      if (!si || si->use != StatUse::kKeep) continue;
      Arg a;
      if (!ToArg(st, si->key, &a)) continue;
      m.args.push_back(a);
      if (trace_.str(si->key) == "hlo_category" && a.type == ArgType::kString) {
        m.has_tpu_kind = true;
        m.tpu_kind = xplane::TpuOpKind(trace_.str(a.s), m.text);
      }
    }
    return m;
  }

  EventKind KindOf(MetaInfo& m, LineClass c) {
    EventKind& k = m.kind[static_cast<size_t>(c)];
    if (k == EventKind::kCount_) {
      k = (c == LineClass::kTpuOps && m.has_tpu_kind) ? m.tpu_kind : xplane::ClassifyEventName(c, m.text);
      if (c == LineClass::kHostThread && !m.text.empty() && m.text[0] == '$') saw_jax_ = true;
    }
    return k;
  }

  void NoteFramework(std::string_view line_name) {
    if (line_name.rfind("py_xla_execute", 0) == 0 || line_name.rfind("tf_pjrt", 0) == 0 ||
        line_name.rfind("pjrt", 0) == 0)
      saw_jax_ = true;
    if (line_name == "TensorFlow Ops" || line_name.rfind("tf_Compute", 0) == 0 ||
        line_name.rfind("tf_data", 0) == 0)
      saw_tf_ = true;
  }

  void ConvertLine(const pb::XLine& line, DeviceKind dk, DeviceId dev) {
    if (line.events_size() == 0) return;
    const std::string& lname = line.display_name().empty() ? line.name() : line.display_name();
    NoteFramework(line.name());
    LineClass lc = xplane::ClassifyLine(dk, line.name());
    TimelineId tid = trace_.AddTimeline(worker_, dev, xplane::TimelineKindOf(lc), line.id(), lname);
    Timeline& tl = trace_.timeline(tid);
    tl.ev.Reserve(line.events_size());
    const int64_t base_ns = line.timestamp_ns();
    StringId step_num_key = trace_.strings.Intern("step_num");
    std::vector<Arg> args;
    for (const pb::XEvent& ev : line.events()) {
      if (ev.data_case() == pb::XEvent::kNumOccurrences) {
        ++aggregated_;  // aggregated events have no time: nothing to place on a timeline
        continue;
      }
      if (ev.duration_ps() < 0) {
        trace_.diagnostics.Count(ImportIssue::kNegativeDuration);
        continue;
      }
      // The line's timestamp plus the event's offset, and that plus its duration, must both be
      // times in range (core/checked_time.h); the proto's int64s alone can be anything.
      const int64_t dur_ns = ev.duration_ps() / 1000;
      const std::optional<int64_t> start = AddToTime(base_ns, ev.offset_ps() / 1000);
      if (!start || !AddToTime(*start, dur_ns)) {
        trace_.diagnostics.Count(ImportIssue::kTimeOutOfRange);
        continue;
      }
      auto mit = metas_.find(ev.metadata_id());
      if (mit == metas_.end()) {
        pb::XEventMetadata missing;
        missing.set_name("event metadata " + std::to_string(ev.metadata_id()));
        mit = metas_.emplace(ev.metadata_id(), MakeMeta(missing)).first;
        trace_.diagnostics.Count(ImportIssue::kXPlaneMissingMetadata);
      }
      MetaInfo& m = mit->second;
      EventKind kind = KindOf(m, lc);
      int64_t corr = 0;
      bool has_memcpy_details = false;
      args.clear();
      for (const pb::XStat& st : ev.stats()) {
        const StatInfo* si = FindStat(st.metadata_id());
        if (!si) continue;
        switch (si->use) {
          case StatUse::kDrop: continue;
          case StatUse::kCorrelation: corr = IntOf(st); continue;
          case StatUse::kIteratorId:
            if (!m.iterator) continue;
            break;
          case StatUse::kKeep: break;
        }
        Arg a;
        if (ToArg(st, si->key, &a)) args.push_back(a);
        if (lc == LineClass::kStream && trace_.str(si->key) == "memcpy_details") has_memcpy_details = true;
      }
      for (const Arg& a : m.args) {
        bool dup = false;
        for (const Arg& b : args) dup |= b.key == a.key;
        if (!dup) args.push_back(a);
      }
      if (lc == LineClass::kHostThread && corr != 0) kind = xplane::HostKindWithCorrelation(kind);
      if (lc == LineClass::kStream && has_memcpy_details && !IsMemcpy(kind))
        kind = xplane::MemcpyKindOf(m.text, line.name());
      if (lc == LineClass::kSteps) AddStepNumber(m.text, step_num_key, &args);
      // A host range carrying step_num is a step annotation: TF's profiler.experimental.Trace(
      // 'train', step_num=N), Keras' train_function, JAX's StepTraceAnnotation.
      if (lc == LineClass::kHostThread)
        for (const Arg& a : args)
          if (a.key == step_num_key) kind = EventKind::kStepMarker;
      uint32_t i = tl.Add(*start, dur_ns, m.name, kind, corr);
      for (const Arg& a : args) tl.AddArg(i, a);
      if (kind == EventKind::kMemoryEvent) AddMemorySample(*start, args, dev);
    }
  }

  // The TF "Steps" line names each step by its number; analyses read step_num.
  static void AddStepNumber(std::string_view name, StringId key, std::vector<Arg>* args) {
    for (const Arg& a : *args)
      if (a.key == key) return;
    int64_t n = 0;
    auto r = std::from_chars(name.data(), name.data() + name.size(), n);
    if (r.ec != std::errc() || r.ptr != name.data() + name.size()) return;
    Arg a;
    a.key = key;
    a.type = ArgType::kInt;
    a.i = n;
    args->push_back(a);
  }

  // Allocator events carry the allocator's bytes in use: one counter series per allocator.
  void AddMemorySample(int64_t ts, const std::vector<Arg>& args, DeviceId host) {
    const Arg* bytes = nullptr;
    const Arg* alloc = nullptr;
    for (const Arg& a : args) {
      std::string_view k = trace_.str(a.key);
      if (k == "bytes_allocated") bytes = &a;
      else if (k == "allocator_name" && a.type == ArgType::kString) alloc = &a;
    }
    if (!bytes || !alloc) return;
    auto it = counters_.find(alloc->s.v);
    if (it == counters_.end()) {
      std::string_view an = trace_.str(alloc->s);
      CounterSeries c;
      c.worker = worker_;
      c.device = host;
      // "GPU_0_bfc" is GPU 0's allocator; others ("gpu_host_bfc", "cpu") are the host's.
      if (an.rfind("GPU_", 0) == 0) {
        int idx = 0;
        std::from_chars(an.data() + 4, an.data() + an.size(), idx);
        c.device = trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, idx, "/device:GPU:" + std::to_string(idx));
      }
      c.name = "memory in use (" + std::string(an) + ")";
      c.unit = "bytes";
      trace_.counters.push_back(std::move(c));
      it = counters_.emplace(alloc->s.v, trace_.counters.size() - 1).first;
    }
    CounterSeries& c = trace_.counters[it->second];
    c.ts_ns.push_back(ts);
    c.value.push_back(bytes->type == ArgType::kDouble ? bytes->d : static_cast<double>(bytes->i));
  }

  Trace& trace_;
  WorkerId worker_;
  const pb::XPlane* plane_ = nullptr;
  std::unordered_map<int64_t, StatInfo> stats_;
  std::unordered_map<int64_t, MetaInfo> metas_;
  std::unordered_map<uint32_t, size_t> counters_;  // allocator name -> index in trace.counters
  bool saw_jax_ = false, saw_tf_ = false;
  size_t aggregated_ = 0;
};

}  // namespace

Status ImportXSpace(ByteSource& src, Trace& trace, const XSpaceImportOptions& opts) {
  Worker w;
  w.hostname = StemOf(src.name());
  w.source_path = src.name();
  WorkerId wid = trace.AddWorker(std::move(w));
  trace.sources.push_back(src.name());

  xplane::XSpaceReader reader(src);
  PlaneConverter conv(trace, wid);
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
        auto* plane = google::protobuf::Arena::CreateMessage<pb::XPlane>(&arena);
        // libprotobuf parses at most 2 GiB per message: a larger plane is reported, not misread.
        if (bytes.size() > INT32_MAX || !plane->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
          ++bad_planes;
          trace.diagnostics.Note(ImportIssue::kCorruptRecord, src.name() + ": XPlane at byte " +
                                                                  std::to_string(reader.offset()) + " does not decode");
        } else {
          conv.Convert(*plane);
          ++planes;
        }
        arena.Reset();  // one plane's proto at a time
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
  if (conv.aggregated_events())
    trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                           src.name() + ": " + std::to_string(conv.aggregated_events()) +
                               " aggregated XPlane events (no start time) not placed on timelines");
  if (!hostname.empty()) trace.workers[wid.v].hostname = hostname;
  bool jax = conv.saw_jax() && !conv.saw_tf();
  trace.format = jax ? "xplane (jax)" : "xplane (tensorflow)";
  trace.framework = jax ? Framework::kJax : Framework::kTensorFlow;
  trace.Finalize();
  return Status::Ok();
}

}  // namespace stepdoctor
