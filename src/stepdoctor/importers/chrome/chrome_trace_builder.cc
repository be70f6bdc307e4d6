#include "stepdoctor/importers/chrome/chrome_trace_builder.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/chrome/chrome_device_lanes.h"
#include "stepdoctor/importers/chrome/chrome_event_classify.h"
#include "stepdoctor/importers/chrome/chrome_file_fixups.h"
#include "stepdoctor/importers/chrome/chrome_flows.h"
#include "stepdoctor/importers/chrome/chrome_process_names.h"
#include "stepdoctor/importers/chrome/horovod_phases.h"
#include "stepdoctor/importers/chrome/legacy_profiler_lanes.h"
#include "stepdoctor/importers/chrome/record_function_ranges.h"
#include "stepdoctor/importers/chrome/chrome_device_props.h"
#include "stepdoctor/importers/chrome/chrome_duplicate_lanes.h"
#include "stepdoctor/importers/chrome/chrome_id_key.h"
#include "stepdoctor/model/batch_copy.h"
#include "stepdoctor/importers/chrome/tf1_timeline_lanes.h"
#include "stepdoctor/model/series_names.h"
#include "stepdoctor/model/tf_op_classify.h"

namespace stepdoctor::chrome {
namespace {

constexpr int kMaxPlausibleGpuPid = 256;             // Kineto numbers GPU "processes" by device

struct TlState {
  TimelineId id;
  IdKey pid, tid;
  std::vector<uint32_t> open_b;   // indices of B events not yet ended
  bool device_category = false;   // saw kernel/memcpy/memset/gpu annotation categories
  bool host_category = false;     // saw host-side categories (cpu_op, *_runtime, python_function ...)
  bool any_category = false;      // some event has a category
  bool flow_target = false;       // ends host-to-device flows (Kineto's ac2g 'f', rocprof's DataFlow 't')
  int device_arg = -1;            // "device" arg of its device events
  bool only_bookkeeping = true;   // every event is the profiler's own record, none the program's
};

bool ParseIntText(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

struct ChromeTraceBuilder::State {
  Trace& trace;
  std::string source;
  WorkerId worker;
  std::unordered_map<std::string, int64_t> string_ids;
  std::vector<std::string> string_texts;
  IdKey last_string_keys[2];  // a cache in front of string_ids (is_string false: empty)
  std::unordered_map<std::pair<IdKey, IdKey>, uint32_t, PairHash> tl_index;
  std::vector<TlState> tls;
  std::unordered_map<IdKey, std::string, IdKeyHash> process_name, process_label;
  std::map<std::pair<IdKey, IdKey>, std::string> thread_name;
  std::map<std::pair<IdKey, std::string>, size_t> counter_index;
  std::map<std::pair<int, int>, size_t> memory_series;  // (GPU or -1, metric) -> counter_index's answer
  std::vector<Flow> flows;
  std::vector<DeviceProps> device_props;
  std::string host_name, backend;
  // SageMaker's profiler (smdebug) writes each file's times from its own start, given in the
  // metadata as start_time_since_epoch_in_micros: 0 where absent.
  int64_t epoch_start_ns = 0;
  int rank = -1, world_size = -1;
  bool schema_version = false, saw_kineto_cat = false, horovod = false;
  bool saw_operator_cat = false;  // Kineto before PyTorch 1.10: host ranges and operators alike
  EventKindMemo kinds;
  // Per process (lane), TF1 ops of the executor's _SOURCE node: one per run on each device.
  std::unordered_map<IdKey, int, IdKeyHash> tf1_source_ops;
  uint64_t events = 0;
  uint64_t skipped = 0;                   // events counted under a diagnostic and not kept
  ImportIssue first_skip = ImportIssue::kMalformedEvent;  // the reason the first of them was
  StringId known_keys[kKnownArgCount];

  State(Trace& t, std::string src) : trace(t), source(std::move(src)) {
    for (int i = 0; i < kKnownArgCount; ++i) known_keys[i] = trace.strings.Intern(kKnownArgKeys[i]);
  }

  IdKey Key(const PidTid& p) {
    if (!p.is_string) return {p.num, false};
    // The last two string ids met (an event's pid and tid): a file repeats a few of them.
    for (const IdKey& k : last_string_keys)
      if (k.is_string && string_texts[size_t(k.v)] == p.str) return k;
    auto [it, inserted] = string_ids.try_emplace(std::string(p.str), int64_t(string_texts.size()));
    if (inserted) string_texts.emplace_back(p.str);
    last_string_keys[1] = last_string_keys[0];
    last_string_keys[0] = {it->second, true};
    return {it->second, true};
  }
  std::string KeyText(IdKey k) const { return k.is_string ? string_texts[size_t(k.v)] : std::to_string(k.v); }

  TlState& Tl(IdKey pid, IdKey tid) {
    auto [it, inserted] = tl_index.try_emplace({pid, tid}, uint32_t(tls.size()));
    if (inserted) {  // a string tid has no number: the timeline's tid is then its first-seen order, negated
      TlState s;
      s.pid = pid, s.tid = tid;
      s.id = trace.AddTimeline(worker, DeviceId{}, TimelineKind::kHostThread, tid.is_string ? -1 - tid.v : tid.v, {});
      tls.push_back(std::move(s));
    }
    return tls[it->second];
  }

  std::string_view Capped(std::string_view text) { return CapText(text, trace.diagnostics); }
  // Counts an event that is not kept, remembering the first reason for the import's message.
  void Skip(ImportIssue why) {
    if (skipped++ == 0) first_skip = why;
    trace.diagnostics.Count(why);
  }

  void AddArgs(Timeline& t, uint32_t idx, const ParsedEvent& e) {
    for (int k = 0; k < e.nargs; ++k) {
      const ParsedArg& a = e.args[k];
      // Known keys are interned once per file; correlation and device ids live in columns.
      if (a.known != KnownArg::kUnknown && !KnownArgIsStored(a.known)) continue;
      if (a.known == KnownArg::kInputDims && !IsBatchCopyOpName(e.name)) continue;  // the batch's copies only
      if (a.known == KnownArg::kShape && !horovod) continue;  // a Horovod tensor's, on its operation's end
      Arg out;
      out.key = a.known != KnownArg::kUnknown ? known_keys[int(a.known)] : trace.strings.Intern(Capped(a.key));
      out.type = a.type;
      out.i = a.i;
      out.d = a.d;
      if (a.type == ArgType::kString) out.s = trace.strings.Intern(Capped(a.s));
      t.AddArg(idx, out);
    }
  }

  static int64_t Correlation(const ParsedEvent& e) {
    for (int k = 0; k < e.nargs; ++k) {
      const auto& a = e.args[k];
      if (IsCorrelationArg(a.known) && a.type != ArgType::kString)
        return a.i;
    }
    return 0;
  }

  // Returns the series' index in trace.counters.
  size_t AddCounterSample(IdKey pid, std::string name, int64_t ts, double v, std::string unit) {
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
    return it->second;
  }

  void OnMetadata(const ParsedEvent& e) {
    IdKey pid = Key(e.pid);
    const ParsedArg* a = e.arg("name");
    // TensorFlow's legacy device names ("/gpu:0/stream:all Compute") take the "/device:GPU:0" form
    // here, once: every check below reads that form only.
    if (e.name == "process_name" && a && a->type == ArgType::kString) {
      // Names not starting with '/' are canonical already: a repeated one costs no copy.
      std::string& slot = process_name[pid];
      const std::string_view v = Capped(a->s);
      if (!v.empty() && v[0] == '/') slot = CanonicalTfDeviceName(v);
      else if (slot != v) slot.assign(v);
    } else if (e.name == "process_name" && (a = e.arg("start_time_since_epoch_in_micros")) &&
               a->type == ArgType::kInt) {
      if (auto ns = CheckedMul(a->i, 1000); ns && TimeInRange(*ns)) epoch_start_ns = *ns;
    } else if (e.name == "process_labels" && (a = e.arg("labels")) && a->type == ArgType::kString)
      process_label[pid] = std::string(Capped(a->s));
    else if (e.name == "thread_name" && a && a->type == ArgType::kString)
      thread_name[{pid, Key(e.tid)}] = std::string(Capped(a->s));
  }

  void OnMemoryInstant(const ParsedEvent& e) {
    // Kineto's [memory] events carry the allocator's running totals per device.
    const ParsedArg* total = e.arg("Total Allocated");
    if (!total) return;
    const ParsedArg* dev = e.arg("Device Id");
    const ParsedArg* type = e.arg("Device Type");
    int64_t d = dev ? dev->i : -1;
    bool gpu = type && type->i != 0 && d >= 0;
    // Each series is looked up by name once: Kineto writes such an event per allocation.
    auto sample = [&](series::GpuMetric m, std::string_view host, double v) {
      auto [it, inserted] = memory_series.try_emplace({gpu ? int(d) : -1, int(m)}, 0);
      if (inserted) {
        it->second = AddCounterSample({-1, false}, gpu ? series::GpuSeriesName(int(d), m) : std::string(host), e.ts_ns, v, "bytes");
      } else {
        auto& c = trace.counters[it->second];
        c.ts_ns.push_back(e.ts_ns);
        c.value.push_back(v);
      }
    };
    sample(series::GpuMetric::kAllocatedBytes, series::kHostAllocatedBytes, total->d);
    if (const ParsedArg* res = e.arg("Total Reserved")) sample(series::GpuMetric::kReservedBytes, series::kHostReservedBytes, res->d);
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
  } else if (key == "cupti_version") {
    s.trace.workers[s.worker.v].device_tracer_started = true;
  }
}

bool ChromeTraceBuilder::WantsTopLevelField(std::string_view key) const {
  return key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo" || key == "host_name" ||
         key == "hostname" || key == "cupti_version";
}

void ChromeTraceBuilder::OnMalformed() { s_->Skip(ImportIssue::kMalformedEvent); }

void ChromeTraceBuilder::OnRepaired(ImportIssue issue, uint64_t n) { s_->trace.diagnostics.Count(issue, n); }

uint64_t ChromeTraceBuilder::events_skipped() const { return s_->skipped; }
ImportIssue ChromeTraceBuilder::first_skip_reason() const { return s_->first_skip; }

void ChromeTraceBuilder::OnEvent(const ParsedEvent& e) {
  State& s = *s_;
  auto& diag = s.trace.diagnostics;
  if (e.ph == 'M') {
    s.OnMetadata(e);
    return;
  }
  // Every time kept lies in +-kMaxTimeNs (core/checked_time.h): the start here, the end below
  // for X events, and a B's end is an E's start. So no later sum or difference overflows.
  switch (e.ts) {
    case TimeParse::kOk: break;
    case TimeParse::kNotATime: s.Skip(ImportIssue::kBadTimestamp); return;
    case TimeParse::kOutOfRange: s.Skip(ImportIssue::kTimeOutOfRange); return;
    case TimeParse::kAbsent:
      // TensorFlow ends its traceEvents with an empty {}: nothing to count.
      if (e.ph == 0 && e.name.empty() && e.nargs == 0) return;
      s.Skip(e.ph == 0 ? ImportIssue::kMalformedEvent : ImportIssue::kMissingTimestamp);
      return;
  }
  if (e.dur == TimeParse::kNotATime) return s.Skip(ImportIssue::kBadDuration);
  // A dur past the range, or one whose end is (a negative dur is counted as such below).
  if (e.dur == TimeParse::kOutOfRange || (e.dur == TimeParse::kOk && e.dur_ns > 0 && !AddToTime(e.ts_ns, e.dur_ns)))
    return s.Skip(ImportIssue::kTimeOutOfRange);
  if (e.pid.not_int64 || e.tid.not_int64) s.trace.diagnostics.Count(ImportIssue::kIdNotInt64);
  switch (e.ph) {
    case 'X':
    case 'B':
    case 'i':
    case 'I':
    case 'R': {
      int64_t dur = 0;
      if (e.ph == 'X') {
        if (e.dur == TimeParse::kAbsent) diag.Count(ImportIssue::kMissingDuration);
        else dur = e.dur_ns;
        if (dur < 0) {
          s.Skip(ImportIssue::kNegativeDuration);
          return;
        }
      }
      const std::string_view name = s.Capped(e.name);
      const StringId name_id = s.trace.strings.Intern(name);
      EventKind kind = s.kinds.Classify(e.cat, name_id, name);
      bool device_cat = false;
      if (!e.cat.empty()) {
        const std::string_view c = e.cat;
        device_cat = c == "kernel" || c == "Kernel" || c == "gpu_memcpy" || c == "Memcpy" || c == "gpu_memset" ||
                     c == "Memset" || c == "gpu_user_annotation";
        if (c == "cpu_op" || c == "cuda_runtime" || c == "kernel") s.saw_kineto_cat = true;
        if (c == "Operator") s.saw_operator_cat = true;
      }
      if (e.ph != 'X' && e.ph != 'B' && e.name == "[memory]") {
        kind = EventKind::kMemoryEvent;
        s.OnMemoryInstant(e);
      }
      if (!s.horovod && IsHorovodOnlyName(e.name)) s.horovod = true;
      TlState& tl = s.Tl(s.Key(e.pid), s.Key(e.tid));
      Timeline& t = s.trace.timeline(tl.id);
      uint32_t idx = t.Add(e.ts_ns, dur, name_id, kind, State::Correlation(e));
      s.AddArgs(t, idx, e);
      if (e.cat == "Op")
        if (const ParsedArg* node = e.arg("name"); node && node->type == ArgType::kString && node->s == "_SOURCE")
          ++s.tf1_source_ops[tl.pid];
      tl.any_category |= !e.cat.empty();
      if (tl.any_category && IsHostCategory(e.cat)) tl.host_category = true;
      if (device_cat) {
        tl.device_category = true;
        if (tl.device_arg < 0)
          if (const ParsedArg* d = e.arg(KnownArg::kDevice); d && d->type == ArgType::kInt) tl.device_arg = int(d->i);
      }
      if (e.ph == 'B') tl.open_b.push_back(idx);
      if (!IsProfilerBookkeeping(e)) tl.only_bookkeeping = false;
      ++s.events;
      return;
    }
    case 'E': {
      TlState& tl = s.Tl(s.Key(e.pid), s.Key(e.tid));
      if (tl.open_b.empty()) {
        s.Skip(ImportIssue::kUnmatchedEnd);
        return;
      }
      uint32_t idx = tl.open_b.back();
      tl.open_b.pop_back();
      Timeline& t = s.trace.timeline(tl.id);
      int64_t d = e.ts_ns - t.ev.start_ns[idx];  // both in range: no overflow
      if (d < 0) {
        diag.Count(ImportIssue::kNegativeDuration);
        d = 0;
      }
      t.ev.dur_ns[idx] = d;
      // Args on the end (Horovod writes a tensor's dtype and shape there) join the begin's where
      // it has none: appended together, they stay one run as the event's args must.
      if (e.nargs > 0 && t.ev.args_n[idx] == 0) s.AddArgs(t, idx, e);
      return;
    }
    case 'C': {
      IdKey pid = s.Key(e.pid);
      // Catapult: a counter's series is its name and id ("name[id]"), so counters that share a
      // name but not an id stay apart.
      std::string series(s.Capped(e.name));
      if (e.has_id) series += "[" + std::string(s.Capped(e.id)) + "]";
      // The trace's own counter under a name of stepdoctor's series families (TF's "cpu_pool",
      // "gpu_bfc" allocators): kept apart from the machine's samples of that family.
      if (series::InSeriesFamily(series)) series.insert(0, "counter:");
      for (int k = 0; k < e.nargs; ++k) {
        const ParsedArg& a = e.args[k];
        if (a.type == ArgType::kString) {
          diag.Count(ImportIssue::kBadCounterValue);
          continue;
        }
        std::string name = series;
        if (e.nargs > 1 || (a.key != "value" && a.key != e.name)) name += "." + std::string(s.Capped(a.key));
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
      if ((e.ph == 'f' && e.cat == "ac2g") || (e.ph == 't' && e.cat == "DataFlow")) tl.flow_target = true;
      s.flows.push_back({id, e.ph, enclosing, tl.id, e.ts_ns});
      return;
    }
    default:
      s.Skip(ImportIssue::kUnknownPhase);
      return;
  }
}

void ChromeTraceBuilder::Finish(const TokenizerStats& stats) {
  State& s = *s_;
  Trace& trace = s.trace;
  // Horovod streams its timeline and never writes the closing `]`: a file that ends after a whole
  // event is not a cut (one that ends inside an event still is).
  if (stats.truncated && !(s.horovod && stats.ended_between_events))
    trace.diagnostics.Note(ImportIssue::kTruncatedInput, s.source + ": the file ends early (truncated)");
  if (stats.broken)
    trace.diagnostics.Note(ImportIssue::kBrokenStructure, s.source + ": the JSON structure breaks at byte " + std::to_string(stats.broken_at));
  if (stats.value_too_large)
    trace.diagnostics.Note(ImportIssue::kOversizedValue, s.source + ": one value is larger than the size cap; reading stopped there");
  std::vector<TimelineId> timelines;  // this file's, all made by now
  for (const auto& tl : s.tls) timelines.push_back(tl.id);
  if (s.horovod) ReadHorovodPhases(trace, timelines, s.source);
  if (stats.trailing_garbage) trace.diagnostics.Count(ImportIssue::kTrailingGarbage);
  // Ranges that never ended close at the end of their thread's activity (chrome_file_fixups.h).
  for (auto& tl : s.tls) {
    if (tl.open_b.empty()) continue;
    CloseOpenRanges(trace.timeline(tl.id), tl.open_b);
    trace.diagnostics.Count(ImportIssue::kUnclosedBegin, tl.open_b.size());
  }
  std::vector<LabelledLane> lanes;  // after the closes: they index the events
  for (const auto& tl : s.tls) {
    auto p = s.process_name.find(tl.pid), pe = s.process_name.end();
    auto t = s.thread_name.find({tl.pid, tl.tid});
    lanes.push_back({tl.id, (p != pe ? p->second : "") + '\x1f' + (t != s.thread_name.end() ? t->second : "")});
  }
  DropDuplicateLanes(trace, lanes, s.source);
  Worker& w = trace.workers[s.worker.v];
  w.rank = s.rank;
  w.world_size = s.world_size;
  w.backend = s.backend;
  w.hostname = !s.host_name.empty() ? s.host_name : HostFromFileName(s.source);

  // Devices and timeline kinds.
  bool tensorflow = false, tf1_timeline = false;
  auto is_tf_plane = [](std::string_view name) { return name.rfind("/host:", 0) == 0 || name.rfind("/device:", 0) == 0; };
  for (const auto& [pid, name] : s.process_name) {
    if (ClassifyTf1Lane(name) != Tf1Lane::kNone) tf1_timeline = true;
    if (is_tf_plane(name) || ClassifyTf1Lane(name) != Tf1Lane::kNone) tensorflow = true;
  }
  // A TF1 timeline is the StepStats of one sess.run: its window is that run, unless a lane starts
  // more than one (files that merge several runs' StepStats).
  int most_sources = 0;
  for (const auto& [pid, n] : s.tf1_source_ops) most_sources = std::max(most_sources, n);
  w.single_run = tf1_timeline && most_sources <= 1;
  w.tf1_session = tf1_timeline;
  for (const auto& tl : s.tls)
    if (tl.pid.is_string && !s.process_name.count(tl.pid) && is_tf_plane(CanonicalTfDeviceName(s.KeyText(tl.pid))))
      tensorflow = true;
  DeviceId host = trace.GetOrAddDevice(s.worker, DeviceKind::kHostCpu, 0, "host CPU");
  const bool autograd_export = s.string_ids.count("CPU functions") > 0;  // legacy_profiler_lanes.h
  // TF1 timelines record a GPU's work on several lanes at once: those each GPU has are its streams.
  std::map<int, Tf1GpuLanes> tf1_gpu_lanes;
  if (tensorflow) {
    std::vector<std::pair<TimelineId, std::string_view>> named;
    for (const auto& tl : s.tls)
      if (auto pn = s.process_name.find(tl.pid); pn != s.process_name.end()) named.push_back({tl.id, pn->second});
    tf1_gpu_lanes = Tf1GpuLanesOf(trace, named);
  }
  // The tasks TF1's lanes name. With one, _Send/_Recv are the executor's bookkeeping; with
  // several, a receive waits on another task over the network: communication.
  std::set<std::string_view> tf1_tasks;
  if (tensorflow)
    for (const auto& [pid, name] : s.process_name)
      if (ClassifyTf1Lane(name) != Tf1Lane::kNone)
        if (std::string_view task = Tf1LaneTask(name); !task.empty()) tf1_tasks.insert(task);
  std::unordered_map<IdKey, size_t, IdKeyHash> events_per_host_pid;
  std::unordered_set<IdKey, IdKeyHash> host_pids;  // processes with host-side categories
  for (const auto& tl : s.tls)
    if (tl.host_category) host_pids.insert(tl.pid);
  for (auto& tl : s.tls) {
    Timeline& t = trace.timeline(tl.id);
    std::string pname = s.process_name.count(tl.pid) ? s.process_name[tl.pid] : std::string();
    std::string plabel = s.process_label.count(tl.pid) ? s.process_label[tl.pid] : std::string();
    auto tn = s.thread_name.find({tl.pid, tl.tid});
    std::string tname = tn != s.thread_name.end() ? tn->second : std::string();
    // A string pid is the process's name, where no metadata event names it.
    if (pname.empty() && tl.pid.is_string) pname = CanonicalTfDeviceName(s.KeyText(tl.pid));
    int gpu = -1, tpu = -1;
    if (tensorflow) {
      gpu = TrailingDeviceNumber(pname, "/device:GPU:");
      tpu = TrailingDeviceNumber(pname, "/device:TPU:");
    }
    if (tl.device_category) {
      gpu = tl.device_arg >= 0 ? tl.device_arg : TrailingDeviceNumber(plabel, "GPU ");
      if (gpu < 0 && tl.pid.is_string) gpu = TrailingDeviceNumber(pname, "GPU ");
      if (gpu < 0 && !tl.pid.is_string && tl.pid.v >= 0 && tl.pid.v < kMaxPlausibleGpuPid) gpu = int(tl.pid.v);
      if (gpu < 0) gpu = 0;
    }
    // Accelerators by structure, not by a vendor list: a process that records no host-side
    // category and is named like a device ("MTIA 9", "XPU 0") or receives the host's
    // launch flows is a device, whatever its vendor calls its lanes ("Stream 1 FW").
    int other = -1;
    std::string other_name;
    if (const auto legacy = autograd_export && tl.pid.is_string && !tl.tid.is_string
                                ? LegacyDeviceLaneOf(pname, tl.tid.v) : LegacyDeviceLane{};
        legacy.kind != DeviceKind::kHostCpu) {
      (legacy.kind == DeviceKind::kGpu ? gpu : other) = legacy.index;
      other_name = legacy.name;
      tl.device_category = w.device_times_per_operator = true;
      MarkLegacyDeviceSpans(trace, t);
    } else if (gpu < 0 && tpu < 0 && !tensorflow && !host_pids.count(tl.pid) && !tl.pid.is_string) {
      auto [word, n] = DeviceProcessName(!plabel.empty() ? plabel : pname);
      if (word == "GPU") gpu = n;
      else if (word == "TPU") tpu = n;
      else if (!word.empty()) {
        other = n;
        other_name = std::string(word) + " " + std::to_string(n);
      } else if (tl.flow_target) {
        other = tl.pid.v >= 0 && tl.pid.v < kMaxPlausibleGpuPid ? int(tl.pid.v) : 0;
        other_name = "accelerator " + std::to_string(other);
      } else if (!s.horovod && ClaimDeviceShapedLane(trace, t, {tl.any_category, pname, plabel, tname})) {
        gpu = 0;  // copies and kernels named as CUDA's and HIP's are: a GPU's (chrome_device_lanes.h)
      }
      if (gpu >= 0 || tpu >= 0 || other >= 0) tl.device_category = true;
      // Their events carry vendor categories (mtia_ccp_events, ...) or none (rocprof): by name.
      if (tl.device_category)
        for (size_t i = 0; i < t.ev.size(); ++i)
          if ((t.ev.kind[i] == EventKind::kOther || t.ev.kind[i] == EventKind::kFrameworkOp) && t.ev.dur_ns[i] > 0)
            t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
    }
    const Tf1Lane tf1 = tensorflow && !tl.device_category ? ClassifyTf1Lane(pname) : Tf1Lane::kNone;
    if (gpu >= 0 && Tf1OpLevelIsHost(tf1, tf1_gpu_lanes[gpu])) gpu = -1;  // a host lane (see there)
    if (tf1 != Tf1Lane::kNone && tf1 != Tf1Lane::kHostOps && gpu >= 0) {
      t.device = trace.GetOrAddDevice(s.worker, DeviceKind::kGpu, gpu);
      t.kind = Tf1LaneIsDeviceStream(tf1, tf1_gpu_lanes[gpu]) ? TimelineKind::kDeviceStream : TimelineKind::kDerived;
      if (tf1 != Tf1Lane::kOpLevel)
        for (size_t i = 0; i < t.ev.size(); ++i) t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
      t.name = pname.substr(0, pname.size() - std::string_view(" Compute").size());
    } else if (gpu >= 0 || tpu >= 0 || other >= 0) {
      DeviceKind kind = gpu >= 0 ? DeviceKind::kGpu : tpu >= 0 ? DeviceKind::kTpu : DeviceKind::kOther;
      int index = gpu >= 0 ? gpu : tpu >= 0 ? tpu : other;
      t.device = trace.GetOrAddDevice(s.worker, kind, index, other_name);
      bool stream = tl.device_category || (tensorflow && (tname.rfind("Stream", 0) == 0 || tname.empty()));
      t.kind = stream ? TimelineKind::kDeviceStream : TimelineKind::kDerived;
      if (tensorflow && stream) {
        // TensorFlow's trace has no categories: the line says what its events are.
        for (size_t i = 0; i < t.ev.size(); ++i) t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
      }
      t.name = !tname.empty() ? tname : (tl.tid.is_string ? s.KeyText(tl.tid) : "stream " + std::to_string(tl.tid.v));
    } else {
      t.device = host;
      // A string pid is a process name like a number is a process id: its threads are the
      // program's unless all they hold is the profiler's bookkeeping.
      bool derived = tl.only_bookkeeping;
      t.kind = derived ? TimelineKind::kDerived : TimelineKind::kHostThread;
      t.name = !tname.empty()                 ? tname
               : tf1 == Tf1Lane::kHostOps || tf1 == Tf1Lane::kOpLevel ? pname.substr(0, pname.size() - 8)  // " Compute"
                                          : "thread " + s.KeyText(tl.tid);
      if (!derived) events_per_host_pid[tl.pid] += t.ev.size();
      if (tf1 == Tf1Lane::kHostOps || tf1 == Tf1Lane::kOpLevel)
        for (size_t i = 0; i < t.ev.size(); ++i)
          if (const std::string_view op = trace.str(t.ev.name[i]);
              t.ev.kind[i] == EventKind::kFrameworkOp && ClassifyTfOp(op) == TfOpRole::kRendezvous)
            t.ev.kind[i] = tf1_tasks.size() > 1 && op.find("Recv") != std::string_view::npos ? EventKind::kCollective
                                                                                           : EventKind::kFrameworkOverhead;
    }
  }
  if (tensorflow) {
    std::vector<std::string_view> names;
    for (const auto& [pid, name] : s.process_name) names.push_back(name);
    NoteTfGpusWithoutEvents(trace, s.worker, names, timelines, s.source);
  }
  TraceViewerProgram viewer;
  if (tensorflow && !tf1_timeline) {
    for (const auto& [key, name] : s.thread_name) viewer.NoteThread(name);
    for (size_t i = 0; i < trace.strings.size() && !(viewer.tensorflow && viewer.jax); ++i)
      viewer.NoteEvent(trace.strings.Get(StringId{uint32_t(i)}));
  }
  size_t best = 0;
  for (auto [pid, n] : events_per_host_pid)
    if (n > best && !pid.is_string) {  // Worker::pid is a number; a named process has none
      best = n;
      w.pid = pid.v;
    }
  ApplyDeviceProps(trace, s.worker, s.device_props, timelines);

  if (s.schema_version || s.saw_kineto_cat) {
    trace.format = "chrome-json (kineto)";
    trace.framework = Framework::kPyTorch;
  } else if (s.horovod) {
    trace.format = "chrome-json (horovod)";
    trace.framework = Framework::kHorovod;
  } else if (tensorflow && (tf1_timeline || viewer.tensorflow || viewer.jax)) {
    const bool jax = !tf1_timeline && viewer.jax && !viewer.tensorflow;
    trace.format = jax ? "chrome-json (jax)" : "chrome-json (tensorflow)";
    trace.framework = jax ? Framework::kJax : Framework::kTensorFlow;
  } else if (autograd_export) {
    trace.format = "chrome-json (pytorch autograd profiler)";
    trace.framework = Framework::kPyTorch;
  } else {
    // Trace-viewer planes with no framework's names: a program recording through the profiler's
    // C++ API, its own spans.
    trace.format = tensorflow ? "chrome-json (trace viewer)" : "chrome-json";
    w.program_spans_only = s.events > 0 && std::none_of(s.tls.begin(), s.tls.end(), [](const auto& tl) { return tl.any_category; });
  }
  ShiftFileToEpoch(trace, timelines, &s.flows, s.worker, s.epoch_start_ns, s.source);
  // Where operators and record_function ranges share a category (or have none), the ranges are
  // told by name: user annotations, as newer Kineto files them (record_function_ranges.h).
  if (trace.framework == Framework::kPyTorch && (s.saw_operator_cat || autograd_export))
    MarkRecordFunctionRanges(trace, timelines);
  trace.Finalize();
  BindFlows(trace, s.flows);
}

}  // namespace stepdoctor::chrome
