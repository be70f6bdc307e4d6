#include "stepdoctor/model/trace_merge.h"

namespace stepdoctor {

void MergeTrace(Trace& into, Trace&& from) {
  // A file that brought nothing to analyse (TensorBoard's .profile-empty marker) does not name
  // the format.
  const bool contributes =
      from.EventCount() > 0 || !from.counters.empty() || !from.scalars.empty() || !from.tf_verdicts.empty();
  // Names: one lookup per distinct string, not per event.
  std::vector<StringId> remap(from.strings.size());
  for (uint32_t i = 0; i < from.strings.size(); ++i) remap[i] = into.strings.Intern(from.strings.Get(StringId{i}));
  auto name = [&](StringId s) { return remap[s.v]; };

  const uint32_t worker_base = uint32_t(into.workers.size());
  const uint32_t device_base = uint32_t(into.devices.size());
  auto worker = [&](WorkerId w) { return w.valid() ? WorkerId{w.v + worker_base} : w; };
  auto device = [&](DeviceId d) { return d.valid() ? DeviceId{d.v + device_base} : d; };

  // Each worker keeps its own files' framework: the trace's below is the first file's.
  for (auto& w : into.workers)
    if (!w.framework) w.framework = into.framework;
  for (auto& w : from.workers) {
    if (!w.framework) w.framework = from.framework;
    into.workers.push_back(std::move(w));
  }
  for (auto& d : from.devices) {
    d.worker = worker(d.worker);
    into.devices.push_back(std::move(d));
  }
  for (auto& t : from.timelines) {
    t.worker = worker(t.worker);
    t.device = device(t.device);
    for (auto& n : t.ev.name) n = name(n);
    for (auto& a : t.args) {
      a.key = name(a.key);
      if (a.type == ArgType::kString) a.s = name(a.s);
    }
    into.timelines.push_back(std::move(t));
  }
  for (auto& c : from.counters) {
    c.worker = worker(c.worker);
    c.device = device(c.device);
    into.counters.push_back(std::move(c));
  }
  for (auto& s : from.scalars) into.scalars.push_back(std::move(s));
  for (auto& v : from.tf_verdicts) into.tf_verdicts.push_back(std::move(v));
  into.diagnostics.Merge(from.diagnostics);
  for (auto& s : from.sources) into.sources.push_back(std::move(s));
  if (into.framework == Framework::kUnknown) into.framework = from.framework;
  if (!contributes || from.format.empty()) return;
  if (into.format.empty()) {
    into.format = from.format;
  } else if (into.format.find(from.format) == std::string::npos) {
    into.format += " + " + from.format;
  }
}

void AppendCapture(Trace& into, Trace&& from, int64_t shift_ns) {
  std::vector<StringId> remap(from.strings.size());
  for (uint32_t i = 0; i < from.strings.size(); ++i) remap[i] = into.strings.Intern(from.strings.Get(StringId{i}));
  const WorkerId w{0};
  // Devices of `from` -> the device of the same kind and index on `into`'s worker.
  std::vector<DeviceId> device(from.devices.size());
  for (size_t i = 0; i < from.devices.size(); ++i) {
    const Device& d = from.devices[i];
    device[i] = into.GetOrAddDevice(w, d.kind, d.index, d.name);
  }
  auto map_device = [&](DeviceId d) { return d.valid() && d.v < device.size() ? device[d.v] : d; };
  for (auto& t : from.timelines) {
    const DeviceId dev = map_device(t.device);
    Timeline* line = nullptr;
    for (auto& l : into.timelines)
      if (l.worker == w && l.device == dev && l.kind == t.kind && l.tid == t.tid && l.name == t.name) line = &l;
    if (!line) line = &into.timeline(into.AddTimeline(w, dev, t.kind, t.tid, t.name));
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const uint32_t e = line->Add(t.ev.start_ns[i] + shift_ns, t.ev.dur_ns[i], remap[t.ev.name[i].v], t.ev.kind[i],
                                   t.ev.corr[i]);
      if (t.ev.args_at[i] == EventColumns::kNoArgs) continue;
      for (uint32_t a = t.ev.args_at[i], end = a + t.ev.args_n[i]; a < end; ++a) {
        Arg arg = t.args[a];
        arg.key = remap[arg.key.v];
        if (arg.type == ArgType::kString) arg.s = remap[arg.s.v];
        line->AddArg(e, arg);
      }
    }
  }
  for (auto& c : from.counters) {
    const DeviceId dev = map_device(c.device);
    CounterSeries* series = nullptr;
    for (auto& s : into.counters)
      if (s.worker == w && s.device == dev && s.name == c.name) series = &s;
    if (!series) {
      into.counters.push_back(CounterSeries{w, dev, c.name, c.unit, {}, {}});
      series = &into.counters.back();
    }
    for (size_t i = 0; i < c.ts_ns.size(); ++i) {
      series->ts_ns.push_back(c.ts_ns[i] + shift_ns);
      series->value.push_back(c.value[i]);
    }
  }
  for (auto& s : from.scalars) into.scalars.push_back(std::move(s));
  for (auto& v : from.tf_verdicts) into.tf_verdicts.push_back(std::move(v));
  into.diagnostics.Merge(from.diagnostics);
  for (auto& s : from.sources) into.sources.push_back(std::move(s));
  // One worker's files joined: one framework for it, and the trace (one worker) says the same.
  const Framework joined = JoinedFramework(FrameworkOf(into, w), FrameworkOf(from, from.workers.empty() ? WorkerId{} : WorkerId{0}));
  into.framework = joined;
  if (!into.workers.empty() && into.workers[0].framework) into.workers[0].framework = joined;
}

}  // namespace stepdoctor
