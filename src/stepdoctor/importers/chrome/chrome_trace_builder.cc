#include "stepdoctor/importers/chrome/chrome_trace_builder.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <vector>

#include "stepdoctor/importers/chrome/chrome_event_classify.h"
#include "stepdoctor/importers/chrome/horovod_phases.h"
#include "stepdoctor/importers/chrome/tf1_timeline_lanes.h"

namespace stepdoctor::chrome {
namespace {

constexpr int64_t kStringIdBase = int64_t{1} << 60;  // synthetic ids for string pids/tids
constexpr int kMaxPlausibleGpuPid = 256;             // Kineto numbers GPU "processes" by device
constexpr int64_t kMaxTimeNs = int64_t{1} << 62;     // |ts| or dur beyond ~146 years: not a time

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const noexcept {
    uint64_t h = static_cast<uint64_t>(p.first) * 0x9E3779B97F4A7C15ull;  // unsigned: wraps, no UB
    return static_cast<size_t>(h ^ (static_cast<uint64_t>(p.second) + (h >> 29)));
  }
};

struct TlState {
  TimelineId id;
  int64_t pid = 0, tid = 0;
  std::vector<uint32_t> open_b;   // indices of B events not yet ended
  bool device_category = false;   // saw kernel/memcpy/memset/gpu annotation categories
  int device_arg = -1;            // "device" arg of its device events
};

struct Flow {
  int64_t id;
  char ph;
  bool bind_enclosing;  // 's' and bp:"e" bind to the enclosing slice; else the next slice
  uint32_t tl;
  int64_t ts;
};

struct DeviceProps {
  int id = -1;
  std::string name;
  int64_t mem = 0;
  int sms = 0, major = 0, minor = 0;
};

bool ParseIntText(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// "GPU 3", "/device:GPU:3", "/device:TPU:0 ..." -> 3 / 3 / 0; -1 where no number follows.
int TrailingDeviceNumber(std::string_view s, std::string_view marker) {
  size_t at = s.find(marker);
  if (at == std::string_view::npos) return -1;
  at += marker.size();
  int v = 0;
  bool any = false;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
    v = v * 10 + (s[at++] - '0');
    any = true;
  }
  return any ? v : -1;
}

}  // namespace

struct ChromeTraceBuilder::State {
  Trace& trace;
  std::string source;
  WorkerId worker;
  std::unordered_map<std::string, int64_t> string_ids;
  std::vector<std::string> string_texts;
  std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> tl_index;
  std::vector<TlState> tls;
  std::unordered_map<int64_t, std::string> process_name, process_label;
  std::map<std::pair<int64_t, int64_t>, std::string> thread_name;
  std::map<std::pair<int64_t, std::string>, size_t> counter_index;
  std::vector<Flow> flows;
  std::vector<DeviceProps> device_props;
  std::string host_name, backend;
  int rank = -1, world_size = -1;
  bool schema_version = false, saw_kineto_cat = false, horovod = false;
  uint64_t events = 0;
  StringId known_keys[kKnownArgCount];

  State(Trace& t, std::string src) : trace(t), source(std::move(src)) {
    for (int i = 0; i < kKnownArgCount; ++i) known_keys[i] = trace.strings.Intern(kKnownArgKeys[i]);
  }

  int64_t Key(const PidTid& p) {
    if (!p.is_string) return p.num;
    auto [it, inserted] = string_ids.try_emplace(std::string(p.str), kStringIdBase + int64_t(string_texts.size()));
    if (inserted) string_texts.emplace_back(p.str);
    return it->second;
  }
  std::string KeyText(int64_t k) const {
    if (k >= kStringIdBase && k - kStringIdBase < int64_t(string_texts.size())) return string_texts[k - kStringIdBase];
    return std::to_string(k);
  }

  TlState& Tl(int64_t pid, int64_t tid) {
    auto [it, inserted] = tl_index.try_emplace({pid, tid}, uint32_t(tls.size()));
    if (inserted) {
      TlState s;
      s.pid = pid;
      s.tid = tid;
      s.id = trace.AddTimeline(worker, DeviceId{}, TimelineKind::kHostThread, tid, {});
      tls.push_back(std::move(s));
    }
    return tls[it->second];
  }

  void AddArgs(Timeline& t, uint32_t idx, const ParsedEvent& e) {
    for (int k = 0; k < e.nargs; ++k) {
      const ParsedArg& a = e.args[k];
      // Known keys are interned once per file; correlation and device ids live in columns.
      if (a.known != KnownArg::kUnknown && !KnownArgIsStored(a.known)) continue;
      Arg out;
      out.key = a.known != KnownArg::kUnknown ? known_keys[int(a.known)] : trace.strings.Intern(a.key);
      out.type = a.type;
      out.i = a.i;
      out.d = a.d;
      if (a.type == ArgType::kString) out.s = trace.strings.Intern(a.s);
      t.AddArg(idx, out);
    }
  }

  static int64_t Correlation(const ParsedEvent& e) {
    for (int k = 0; k < e.nargs; ++k) {
      const auto& a = e.args[k];
      if ((a.known == KnownArg::kCorrelation || a.known == KnownArg::kCorrelationId) && a.type != ArgType::kString)
        return a.i;
    }
    return 0;
  }

  void AddCounterSample(int64_t pid, std::string name, int64_t ts, double v, std::string unit) {
    auto [it, inserted] = counter_index.try_emplace({pid, name}, trace.counters.size());
    if (inserted) {
      CounterSeries c;
      c.worker = worker;
      c.name = std::move(name);
      c.unit = std::move(unit);
      trace.counters.push_back(std::move(c));
    }
    auto& c = trace.counters[it->second];
    c.ts_ns.push_back(ts);
    c.value.push_back(v);
  }

  void OnMetadata(const ParsedEvent& e) {
    int64_t pid = Key(e.pid);
    const ParsedArg* a = e.arg("name");
    if (e.name == "process_name" && a && a->type == ArgType::kString) process_name[pid] = std::string(a->s);
    else if (e.name == "process_labels" && (a = e.arg("labels")) && a->type == ArgType::kString)
      process_label[pid] = std::string(a->s);
    else if (e.name == "thread_name" && a && a->type == ArgType::kString)
      thread_name[{pid, Key(e.tid)}] = std::string(a->s);
  }

  void OnMemoryInstant(const ParsedEvent& e) {
    // Kineto's [memory] events carry the allocator's running totals per device.
    const ParsedArg* total = e.arg("Total Allocated");
    if (!total) return;
    const ParsedArg* dev = e.arg("Device Id");
    const ParsedArg* type = e.arg("Device Type");
    int64_t d = dev ? dev->i : -1;
    bool gpu = type && type->i != 0 && d >= 0;
    std::string base = gpu ? "gpu" + std::to_string(d) : "cpu";
    AddCounterSample(-1, base + "_memory_allocated_bytes", e.ts_ns, total->d, "bytes");
    if (const ParsedArg* res = e.arg("Total Reserved"))
      AddCounterSample(-1, base + "_memory_reserved_bytes", e.ts_ns, res->d, "bytes");
  }
};

ChromeTraceBuilder::ChromeTraceBuilder(Trace& trace, std::string source_name)
    : s_(std::make_unique<State>(trace, std::move(source_name))) {
  Worker w;
  w.source_path = s_->source;
  s_->worker = trace.AddWorker(std::move(w));
  trace.sources.push_back(s_->source);
}

ChromeTraceBuilder::~ChromeTraceBuilder() = default;

uint64_t ChromeTraceBuilder::events_added() const { return s_->events; }

void ChromeTraceBuilder::OnTopLevelField(std::string_view key, std::string_view raw) {
  State& s = *s_;
  if (key == "schemaVersion") {
    s.schema_version = true;
  } else if (key == "deviceProperties") {
    ForEachScalarField(raw, [](void* ctx, int i, std::string_view k, std::string_view v) {
      auto& props = *static_cast<std::vector<DeviceProps>*>(ctx);
      if (int(props.size()) <= i) props.resize(i + 1);
      auto& p = props[i];
      int64_t n = 0;
      bool num = ParseIntText(v, &n);
      if (k == "id" && num) p.id = int(n);
      else if (k == "name") p.name = std::string(v);
      else if (k == "totalGlobalMem" && num) p.mem = n;
      else if (k == "numSms" && num) p.sms = int(n);
      else if (k == "computeMajor" && num) p.major = int(n);
      else if (k == "computeMinor" && num) p.minor = int(n);
    }, &s.device_props);
  } else if (key == "distributedInfo") {
    ForEachScalarField(raw, [](void* ctx, int, std::string_view k, std::string_view v) {
      auto& st = *static_cast<State*>(ctx);
      int64_t n = 0;
      if (k == "rank" && ParseIntText(v, &n)) st.rank = int(n);
      else if (k == "world_size" && ParseIntText(v, &n)) st.world_size = int(n);
      else if (k == "backend") st.backend = std::string(v);
    }, &s);
  } else if (key == "host_name" || key == "hostname") {
    if (raw.size() >= 2 && raw.front() == '"') s.host_name = std::string(raw.substr(1, raw.size() - 2));
  }
}

void ChromeTraceBuilder::OnMalformed() { s_->trace.diagnostics.Count(ImportIssue::kMalformedEvent); }

void ChromeTraceBuilder::OnEvent(const ParsedEvent& e) {
  State& s = *s_;
  auto& diag = s.trace.diagnostics;
  if (e.ph == 'M') {
    s.OnMetadata(e);
    return;
  }
  if (!e.has_ts) {
    // TensorFlow ends its traceEvents with an empty {}: nothing to count.
    if (e.ph == 0 && e.name.empty() && e.nargs == 0) return;
    diag.Count(e.ph == 0 ? ImportIssue::kMalformedEvent : ImportIssue::kMissingTimestamp);
    return;
  }
  if (e.ts_ns > kMaxTimeNs || e.ts_ns < -kMaxTimeNs || (e.has_dur && e.dur_ns > kMaxTimeNs)) {
    diag.Count(ImportIssue::kMalformedEvent);  // so that start + dur can never overflow
    return;
  }
  switch (e.ph) {
    case 'X':
    case 'B':
    case 'i':
    case 'I':
    case 'R': {
      int64_t dur = 0;
      if (e.ph == 'X') {
        if (!e.has_dur) diag.Count(ImportIssue::kMissingDuration);
        else dur = e.dur_ns;
        if (dur < 0) {
          diag.Count(ImportIssue::kNegativeDuration);
          return;
        }
      }
      EventKind kind = ClassifyEvent(e.cat, e.name);
      bool device_cat = false;
      if (!e.cat.empty()) {
        const std::string_view c = e.cat;
        device_cat = c == "kernel" || c == "Kernel" || c == "gpu_memcpy" || c == "Memcpy" || c == "gpu_memset" ||
                     c == "Memset" || c == "gpu_user_annotation";
        if (c == "cpu_op" || c == "cuda_runtime" || c == "kernel") s.saw_kineto_cat = true;
      }
      if (e.ph != 'X' && e.ph != 'B' && e.name == "[memory]") {
        kind = EventKind::kMemoryEvent;
        s.OnMemoryInstant(e);
      }
      if (!s.horovod && IsHorovodOnlyName(e.name)) s.horovod = true;
      TlState& tl = s.Tl(s.Key(e.pid), s.Key(e.tid));
      Timeline& t = s.trace.timeline(tl.id);
      uint32_t idx = t.Add(e.ts_ns, dur, s.trace.strings.Intern(e.name), kind, State::Correlation(e));
      s.AddArgs(t, idx, e);
      if (device_cat) {
        tl.device_category = true;
        if (tl.device_arg < 0)
          if (const ParsedArg* d = e.arg(KnownArg::kDevice); d && d->type == ArgType::kInt) tl.device_arg = int(d->i);
      }
      if (e.ph == 'B') tl.open_b.push_back(idx);
      ++s.events;
      return;
    }
    case 'E': {
      TlState& tl = s.Tl(s.Key(e.pid), s.Key(e.tid));
      if (tl.open_b.empty()) {
        diag.Count(ImportIssue::kUnmatchedEnd);
        return;
      }
      uint32_t idx = tl.open_b.back();
      tl.open_b.pop_back();
      Timeline& t = s.trace.timeline(tl.id);
      int64_t d = e.ts_ns - t.ev.start_ns[idx];
      if (d < 0) {
        diag.Count(ImportIssue::kNegativeDuration);
        d = 0;
      }
      t.ev.dur_ns[idx] = d;
      return;
    }
    case 'C': {
      int64_t pid = s.Key(e.pid);
      for (int k = 0; k < e.nargs; ++k) {
        const ParsedArg& a = e.args[k];
        if (a.type == ArgType::kString) {
          diag.Count(ImportIssue::kBadCounterValue);
          continue;
        }
        std::string name(e.name);
        if (e.nargs > 1 || (a.key != "value" && a.key != e.name)) name += "." + std::string(a.key);
        s.AddCounterSample(pid, std::move(name), e.ts_ns, a.d, "");
      }
      return;
    }
    case 's':
    case 't':
    case 'f': {
      if (!e.has_id || e.cat == "fwdbwd") return;  // forward/backward links are not launches
      int64_t id = 0;
      if (!ParseIntText(e.id, &id)) return;
      TlState& tl = s.Tl(s.Key(e.pid), s.Key(e.tid));
      bool enclosing = e.ph == 's' || e.bp == "e";
      s.flows.push_back({id, e.ph, enclosing, uint32_t(&tl - s.tls.data()), e.ts_ns});
      return;
    }
    default:
      diag.Count(ImportIssue::kUnknownPhase);
      return;
  }
}

void ChromeTraceBuilder::ReadAsHorovod() {
  State& s = *s_;
  Trace& trace = s.trace;
  uint64_t repaired = 0;
  for (auto& tl : s.tls) {
    Timeline& t = trace.timeline(tl.id);
    for (size_t i = 0; i < t.ev.size(); ++i) {
      std::string_view n = trace.str(t.ev.name[i]);
      t.ev.kind[i] = HorovodPhaseKind(n, t.ev.kind[i]);
      // Horovod writes rank-ready markers with dur 0; a converter that filled in a duration
      // (smdebug's copies run for days) must not stretch the window.
      if (IsHorovodRankMarker(n) && t.ev.dur_ns[i] != 0) {
        t.ev.dur_ns[i] = 0;
        ++repaired;
      }
    }
    // Horovod opens a phase per tensor and closes it with an E; a B still open here was cut by the
    // end of the file, and is closed in Finish with the rest.
  }
  if (repaired) {
    trace.diagnostics.Count(ImportIssue::kInstantWithDuration, repaired - 1);  // the note counts the last one
    trace.diagnostics.Note(ImportIssue::kInstantWithDuration,
                           s.source + ": " + std::to_string(repaired) + " Horovod rank-ready markers carried a duration; read as instants");
  }
}

void ChromeTraceBuilder::Finish(const TokenizerStats& stats) {
  State& s = *s_;
  Trace& trace = s.trace;
  // Horovod streams its timeline and never writes the closing `]`: a file that ends after a whole
  // event is not a cut (one that ends inside an event still is).
  if (stats.truncated && !(s.horovod && stats.ended_between_events))
    trace.diagnostics.Note(ImportIssue::kTruncatedInput, s.source + ": the file ends early (truncated)");
  if (s.horovod) ReadAsHorovod();
  if (stats.trailing_garbage) trace.diagnostics.Count(ImportIssue::kTrailingGarbage);

  // Close ranges that never ended at the end of their thread's activity.
  for (auto& tl : s.tls) {
    if (tl.open_b.empty()) continue;
    Timeline& t = trace.timeline(tl.id);
    int64_t last = 0;
    for (size_t i = 0; i < t.ev.size(); ++i) last = std::max(last, t.ev.start_ns[i] + t.ev.dur_ns[i]);
    for (uint32_t idx : tl.open_b) t.ev.dur_ns[idx] = std::max<int64_t>(0, last - t.ev.start_ns[idx]);
    trace.diagnostics.Count(ImportIssue::kUnclosedBegin, tl.open_b.size());
  }

  // Worker identity.
  Worker& w = trace.workers[s.worker.v];
  w.rank = s.rank;
  w.world_size = s.world_size;
  w.backend = s.backend;
  if (!s.host_name.empty()) {
    w.hostname = s.host_name;
  } else {
    std::string_view base = s.source;
    if (auto slash = base.find_last_of('/'); slash != std::string_view::npos) base = base.substr(slash + 1);
    w.hostname = std::string(base.substr(0, base.find('.')));
  }

  // Devices and timeline kinds.
  bool tensorflow = false;
  for (const auto& [pid, name] : s.process_name)
    if (name.rfind("/host:", 0) == 0 || name.rfind("/device:", 0) == 0 || ClassifyTf1Lane(name) != Tf1Lane::kNone)
      tensorflow = true;
  DeviceId host = trace.GetOrAddDevice(s.worker, DeviceKind::kHostCpu, 0, "host CPU");
  // TF1 timelines record a GPU's work on several lanes at once: which ones each GPU has decides
  // which lanes are its streams (tf1_timeline_lanes.h).
  std::map<int, std::pair<bool, bool>> tf1_gpu_lanes;  // GPU -> (per-stream lanes, stream:all)
  if (tensorflow)
    for (const auto& tl : s.tls) {
      auto pn = s.process_name.find(tl.pid);
      if (pn == s.process_name.end()) continue;
      Tf1Lane lane = ClassifyTf1Lane(pn->second);
      int gpu = TrailingDeviceNumber(pn->second, "/device:GPU:");
      if (gpu < 0) continue;
      if (lane == Tf1Lane::kStream) tf1_gpu_lanes[gpu].first = true;
      if (lane == Tf1Lane::kAllStreams) tf1_gpu_lanes[gpu].second = true;
    }
  std::unordered_map<int64_t, size_t> events_per_host_pid;
  for (auto& tl : s.tls) {
    Timeline& t = trace.timeline(tl.id);
    std::string pname = s.process_name.count(tl.pid) ? s.process_name[tl.pid] : std::string();
    std::string plabel = s.process_label.count(tl.pid) ? s.process_label[tl.pid] : std::string();
    auto tn = s.thread_name.find({tl.pid, tl.tid});
    std::string tname = tn != s.thread_name.end() ? tn->second : std::string();
    int gpu = -1, tpu = -1;
    if (tensorflow) {
      gpu = TrailingDeviceNumber(pname, "/device:GPU:");
      tpu = TrailingDeviceNumber(pname, "/device:TPU:");
    }
    if (tl.device_category) {
      gpu = tl.device_arg >= 0 ? tl.device_arg : TrailingDeviceNumber(plabel, "GPU ");
      if (gpu < 0 && tl.pid >= 0 && tl.pid < kMaxPlausibleGpuPid) gpu = int(tl.pid);
      if (gpu < 0) gpu = 0;
    }
    const Tf1Lane tf1 = tensorflow && !tl.device_category ? ClassifyTf1Lane(pname) : Tf1Lane::kNone;
    if (tf1 != Tf1Lane::kNone && tf1 != Tf1Lane::kHostOps && gpu >= 0) {
      t.device = trace.GetOrAddDevice(s.worker, DeviceKind::kGpu, gpu);
      auto [streams, all] = tf1_gpu_lanes[gpu];
      t.kind = Tf1LaneIsDeviceStream(tf1, streams, all) ? TimelineKind::kDeviceStream : TimelineKind::kDerived;
      if (tf1 != Tf1Lane::kOpLevel)
        for (size_t i = 0; i < t.ev.size(); ++i) t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
      t.name = pname.substr(0, pname.size() - std::string_view(" Compute").size());
    } else if (gpu >= 0 || tpu >= 0) {
      DeviceKind kind = gpu >= 0 ? DeviceKind::kGpu : DeviceKind::kTpu;
      int index = gpu >= 0 ? gpu : tpu;
      t.device = trace.GetOrAddDevice(s.worker, kind, index);
      bool stream = tl.device_category || (tensorflow && (tname.rfind("Stream", 0) == 0 || tname.empty()));
      t.kind = stream ? TimelineKind::kDeviceStream : TimelineKind::kDerived;
      if (tensorflow && stream) {
        // TensorFlow's trace has no categories: the line says what its events are.
        for (size_t i = 0; i < t.ev.size(); ++i) t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
      }
      t.name = !tname.empty() ? tname : (tl.tid >= kStringIdBase ? s.KeyText(tl.tid) : "stream " + std::to_string(tl.tid));
    } else {
      t.device = host;
      bool derived = tl.pid >= kStringIdBase && s.KeyText(tl.pid) != "CPU functions";
      t.kind = derived ? TimelineKind::kDerived : TimelineKind::kHostThread;
      t.name = !tname.empty()                 ? tname
               : tf1 == Tf1Lane::kHostOps ? pname.substr(0, pname.size() - std::string_view(" Compute").size())
                                          : "thread " + s.KeyText(tl.tid);
      if (!derived) events_per_host_pid[tl.pid] += t.ev.size();
    }
  }
  if (tensorflow) {
    // TF names every GPU it placed work on; where none of them holds an event, device tracing was
    // off or failed, and the host's view is all there is: say so rather than let the CPU stand in.
    int named_gpus = 0;
    bool any_stream = false;
    for (const auto& [pid, name] : s.process_name) named_gpus += TrailingDeviceNumber(name, "/device:GPU:") >= 0;
    for (const auto& tl : s.tls) any_stream |= trace.timeline(tl.id).kind == TimelineKind::kDeviceStream;
    if (named_gpus > 0 && !any_stream)
      trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                             s.source + ": the trace names " + std::to_string(named_gpus) +
                                 " GPU lane(s) but holds no GPU events (device tracing off or failed): device time unknown");
  }
  size_t best = 0;
  for (auto [pid, n] : events_per_host_pid)
    if (n > best && pid < kStringIdBase) {
      best = n;
      w.pid = pid;
    }
  for (auto& d : trace.devices) {
    if (d.worker != s.worker || d.kind != DeviceKind::kGpu) continue;
    for (const auto& p : s.device_props) {
      if (p.id != d.index) continue;
      d.name = p.name;
      d.memory_bytes = p.mem;
      d.sm_count = p.sms;
      d.compute_major = p.major;
      d.compute_minor = p.minor;
      d.vendor = p.name.find("AMD") != std::string::npos || p.name.find("MI") == 0 ? "amd" : "nvidia";
    }
    if (d.name.empty()) d.name = "GPU " + std::to_string(d.index);
  }

  // Format label.
  if (s.schema_version || s.saw_kineto_cat) {
    trace.format = "chrome-json (kineto)";
    trace.framework = Framework::kPyTorch;
  } else if (s.horovod) {
    trace.format = "chrome-json (horovod)";
    trace.framework = Framework::kHorovod;
  } else if (tensorflow) {
    trace.format = "chrome-json (tensorflow)";
    trace.framework = Framework::kTensorFlow;
  } else if (s.string_ids.count("CPU functions")) {
    trace.format = "chrome-json (pytorch autograd profiler)";
    trace.framework = Framework::kPyTorch;
  } else {
    trace.format = "chrome-json";
  }

  trace.Finalize();

  // Flows: give launch/kernel pairs a shared correlation id where the events carry none.
  for (const Flow& f : s.flows) {
    Timeline& t = trace.timeline(s.tls[f.tl].id);
    const auto& st = t.ev.start_ns;
    auto it = std::upper_bound(st.begin(), st.end(), f.ts);  // first event starting after ts
    if (!f.bind_enclosing) it = std::lower_bound(st.begin(), st.end(), f.ts);
    int64_t target = -1;
    if (f.bind_enclosing) {
      // The latest-starting event at or before ts that still covers ts.
      for (auto j = it; j != st.begin();) {
        --j;
        size_t i = size_t(j - st.begin());
        if (st[i] + t.ev.dur_ns[i] >= f.ts) {
          target = int64_t(i);
          break;
        }
        if (f.ts - st[i] > 10'000'000) break;  // stop looking 10 ms back
      }
    } else if (it != st.end()) {
      target = int64_t(it - st.begin());
    }
    if (target >= 0 && t.ev.corr[size_t(target)] == 0) t.ev.corr[size_t(target)] = f.id;
  }
}

}  // namespace stepdoctor::chrome
