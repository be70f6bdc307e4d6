#include "stepdoctor/model/trace.h"

#include <algorithm>
#include <numeric>

#include "stepdoctor/core/checked_time.h"

namespace stepdoctor {

const char* FrameworkName(Framework f) {
  switch (f) {
    case Framework::kPyTorch: return "pytorch";
    case Framework::kTensorFlow: return "tensorflow";
    case Framework::kJax: return "jax";
    case Framework::kHorovod: return "horovod";
    case Framework::kUnknown: break;
  }
  return "unknown";
}

Framework FrameworkOf(const Trace& trace, WorkerId worker) {
  if (worker.valid() && worker.v < trace.workers.size() && trace.workers[worker.v].framework)
    return *trace.workers[worker.v].framework;
  return trace.framework;
}

Framework JoinedFramework(Framework a, Framework b) {
  if (a == b || b == Framework::kHorovod) return a;
  if (a == Framework::kHorovod) return b;
  return a == Framework::kUnknown ? b : a;
}

void EventColumns::Reserve(size_t n) {
  start_ns.reserve(n);
  dur_ns.reserve(n);
  name.reserve(n);
  kind.reserve(n);
  corr.reserve(n);
  args_at.reserve(n);
  args_n.reserve(n);
}

uint32_t Timeline::Add(int64_t start, int64_t dur, StringId nm, EventKind k, int64_t c) {
  ev.start_ns.push_back(start);
  ev.dur_ns.push_back(dur);
  ev.name.push_back(nm);
  ev.kind.push_back(k);
  ev.corr.push_back(c);
  ev.args_at.push_back(EventColumns::kNoArgs);
  ev.args_n.push_back(0);
  return static_cast<uint32_t>(ev.start_ns.size() - 1);
}

void Timeline::AddArg(uint32_t event, const Arg& arg) {
  if (ev.args_at[event] == EventColumns::kNoArgs) ev.args_at[event] = static_cast<uint32_t>(args.size());
  if (ev.args_n[event] == 255) return;  // more args than we keep for one event
  ++ev.args_n[event];
  args.push_back(arg);
}

const Arg* Timeline::FindArg(uint32_t event, StringId key) const {
  uint32_t at = ev.args_at[event];
  if (at == EventColumns::kNoArgs) return nullptr;
  for (uint32_t i = at, e = at + ev.args_n[event]; i < e; ++i)
    if (args[i].key == key) return &args[i];
  return nullptr;
}

WorkerId Trace::AddWorker(Worker w) {
  workers.push_back(std::move(w));
  return WorkerId{static_cast<uint32_t>(workers.size() - 1)};
}

DeviceId Trace::AddDevice(Device d) {
  devices.push_back(std::move(d));
  return DeviceId{static_cast<uint32_t>(devices.size() - 1)};
}

DeviceId Trace::GetOrAddDevice(WorkerId w, DeviceKind kind, int index, std::string_view name) {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i].worker == w && devices[i].kind == kind && devices[i].index == index)
      return DeviceId{static_cast<uint32_t>(i)};
  Device d;
  d.worker = w;
  d.kind = kind;
  d.index = index;
  d.name = std::string(name);
  return AddDevice(std::move(d));
}

TimelineId Trace::AddTimeline(WorkerId w, DeviceId d, TimelineKind kind, int64_t tid, std::string name) {
  Timeline t;
  t.worker = w;
  t.device = d;
  t.kind = kind;
  t.tid = tid;
  t.name = std::move(name);
  timelines.push_back(std::move(t));
  return TimelineId{static_cast<uint32_t>(timelines.size() - 1)};
}

namespace {

template <typename T>
void Permute(std::vector<T>& v, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(v.size());
  for (uint32_t i : order) out.push_back(v[i]);
  v.swap(out);
}

template <typename T>
void KeepOnly(std::vector<T>& v, const std::vector<bool>& keep) {
  size_t w = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (keep[i]) v[w++] = v[i];
  v.resize(w);
}

// Drops (and returns how many) events whose start or end lies outside the time range. The
// importers already skip them as they read; this holds the model to it whatever built it.
uint64_t DropOutOfRange(EventColumns& e) {
  std::vector<bool> keep;
  uint64_t dropped = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    bool ok = TimeInRange(e.start_ns[i]) && AddToTime(e.start_ns[i], e.dur_ns[i]).has_value();
    if (ok && keep.empty()) continue;
    if (keep.empty()) keep.assign(e.size(), true);
    keep[i] = ok;
    dropped += !ok;
  }
  if (dropped == 0) return 0;
  KeepOnly(e.start_ns, keep);
  KeepOnly(e.dur_ns, keep);
  KeepOnly(e.name, keep);
  KeepOnly(e.kind, keep);
  KeepOnly(e.corr, keep);
  KeepOnly(e.args_at, keep);
  KeepOnly(e.args_n, keep);
  return dropped;
}

// Drops samples whose time is outside the range (counted in *times) and, in a byte series,
// samples whose value int64 cannot hold (counted in *values): device memory and the analyses
// read byte counts as int64.
void DropOutOfRange(CounterSeries& c, uint64_t* times, uint64_t* values) {
  std::vector<bool> keep;
  const bool bytes = c.unit == "bytes";
  for (size_t i = 0; i < c.ts_ns.size(); ++i) {
    const bool time_ok = TimeInRange(c.ts_ns[i]);
    if (time_ok && (!bytes || RoundToInt64(c.value[i]))) continue;
    if (keep.empty()) keep.assign(c.ts_ns.size(), true);
    keep[i] = false;
    ++*(time_ok ? values : times);
  }
  if (keep.empty()) return;
  KeepOnly(c.ts_ns, keep);
  KeepOnly(c.value, keep);
}

void SortTimeline(Timeline& t) {
  auto& e = t.ev;
  const size_t n = e.size();
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i)
    sorted = e.start_ns[i - 1] < e.start_ns[i] ||
             (e.start_ns[i - 1] == e.start_ns[i] && e.dur_ns[i - 1] >= e.dur_ns[i]);
  if (sorted) return;
  auto before = [&](uint32_t a, uint32_t b) {
    if (e.start_ns[a] != e.start_ns[b]) return e.start_ns[a] < e.start_ns[b];
    return e.dur_ns[a] > e.dur_ns[b];
  };
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  // A stable sort. Events mostly arrive as long runs already in order (a profiler flushing its
  // buffers, one thread's events written in end order): merging the runs stably gives the same
  // order as std::stable_sort for less work; many short runs are stable-sorted.
  std::vector<size_t> runs{0};
  for (size_t i = 1; i < n; ++i)
    if (before(uint32_t(i), uint32_t(i - 1))) runs.push_back(i);
  constexpr size_t kMinRunLength = 16;
  if (runs.size() * kMinRunLength > n) {
    std::stable_sort(order.begin(), order.end(), before);
  } else {
    runs.push_back(n);
    while (runs.size() > 2) {
      std::vector<size_t> next{0};
      for (size_t r = 0; r + 1 < runs.size(); r += 2) {
        if (r + 2 < runs.size()) {
          std::inplace_merge(order.begin() + std::ptrdiff_t(runs[r]), order.begin() + std::ptrdiff_t(runs[r + 1]),
                             order.begin() + std::ptrdiff_t(runs[r + 2]), before);
          next.push_back(runs[r + 2]);
        } else {
          next.push_back(runs[r + 1]);
        }
      }
      runs.swap(next);
    }
  }
  Permute(e.start_ns, order);
  Permute(e.dur_ns, order);
  Permute(e.name, order);
  Permute(e.kind, order);
  Permute(e.corr, order);
  Permute(e.args_at, order);
  Permute(e.args_n, order);
}

}  // namespace

void Trace::Finalize() {
  uint64_t out_of_range = 0, values_out_of_range = 0;
  for (auto& t : timelines) {
    out_of_range += DropOutOfRange(t.ev);
    SortTimeline(t);
  }
  for (auto& c : counters) {
    DropOutOfRange(c, &out_of_range, &values_out_of_range);
    const size_t n = c.ts_ns.size();
    if (std::is_sorted(c.ts_ns.begin(), c.ts_ns.end())) continue;
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return c.ts_ns[a] < c.ts_ns[b]; });
    Permute(c.ts_ns, order);
    Permute(c.value, order);
  }
  // A series left with no sample by the drop goes too: analyses expect none empty.
  if (out_of_range + values_out_of_range > 0)
    std::erase_if(counters, [](const CounterSeries& c) { return c.ts_ns.empty(); });
  diagnostics.Count(ImportIssue::kTimeOutOfRange, out_of_range);
  diagnostics.Count(ImportIssue::kValueOutOfRange, values_out_of_range);
}

size_t Trace::EventCount() const {
  size_t n = 0;
  for (const auto& t : timelines) n += t.ev.size();
  return n;
}

bool HasMatrixUnits(const Device& d) {
  return d.kind == DeviceKind::kGpu && (d.compute_major >= 7 || d.vendor == "amd");
}

}  // namespace stepdoctor
