#include "stepdoctor/analysis/trace_to_kernel_tables.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "stepdoctor/analysis/sort_runs.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/model/device_work_classify.h"

namespace stepdoctor {
namespace {

enum WorkClass { kCompute, kCommunication, kMemory, kClassCount };
constexpr const char* kClassNames[kClassCount] = {"compute", "communication", "memory"};

struct Op {
  int64_t start, dur;
  StringId name;
  int64_t corr;
  uint32_t stream;
  int64_t delay = -1;  // ns; -1: no launch delay (no launch linked, or not first of its graph)
  int64_t launch_start = 0;
  int64_t stream_free = INT64_MIN;  // the end of the earlier work on its stream
};

struct Launch {
  int64_t start;
  StringId name;
  size_t ops_begin = 0, ops_end = 0;  // the ops of its correlation id: a run of `by_corr` below
};

std::string StreamLabel(const Trace& trace, const Timeline& t) {
  const Device& d = trace.device(t.device);
  return (d.kind == DeviceKind::kTpu ? "TPU " : d.kind == DeviceKind::kGpu ? "GPU " : "device ") + std::to_string(d.index) +
         " " + t.name;
}

}  // namespace

KernelTables TraceToKernelTables(const Trace& trace, WorkerId worker, const std::vector<TopEvent>& top_ops, int64_t lo) {
  KernelTables out;
  std::unordered_map<int64_t, Launch> launches;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kRuntime && t.ev.corr[i] != 0) launches[t.ev.corr[i]] = {t.ev.start_ns[i], t.ev.name[i]};
  }
  std::vector<Op> ops;
  std::vector<std::string> stream_names;
  std::unordered_map<StringId, WorkClass> classes;
  std::array<std::vector<int64_t>, kClassCount> durs;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    const uint32_t stream = uint32_t(stream_names.size());
    stream_names.push_back(StreamLabel(trace, t));
    int64_t stream_free = INT64_MIN;  // the timeline is sorted by start
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      if (!IsDeviceActivity(k)) continue;
      ops.push_back({t.ev.start_ns[i], t.ev.dur_ns[i], t.ev.name[i], t.ev.corr[i], stream});
      ops.back().stream_free = stream_free;
      stream_free = std::max(stream_free, t.ev.start_ns[i] + t.ev.dur_ns[i]);
      WorkClass c = k == EventKind::kCollective ? kCommunication : k == EventKind::kKernel ? kCompute : kMemory;
      if (c == kCompute) {
        auto it = classes.find(t.ev.name[i]);
        if (it == classes.end()) {
          const DeviceWorkRole r = ClassifyDeviceWork(trace.str(t.ev.name[i])).role;
          it = classes.emplace(t.ev.name[i], r == DeviceWorkRole::kCollective ? kCommunication
                                             : r == DeviceWorkRole::kCompute  ? kCompute
                                                                              : kMemory).first;
        }
        c = it->second;
      }
      durs[c].push_back(t.ev.dur_ns[i]);
    }
  }
  for (int c = 0; c < kClassCount; ++c) {
    if (durs[c].empty()) continue;
    KernelClassStats s;
    s.work_class = kClassNames[c];
    s.count = int64_t(durs[c].size());
    double total = 0;
    for (int64_t d : durs[c]) total += double(d);
    s.total_ms = total / 1e6;
    s.mean_us = total / double(s.count) / 1e3;
    s.min_us = double(*std::min_element(durs[c].begin(), durs[c].end())) / 1e3;
    s.max_us = double(*std::max_element(durs[c].begin(), durs[c].end())) / 1e3;
    out.classes.push_back(std::move(s));
  }

  // Ops by correlation id: (id, op index) pairs sorted, so each id's ops are one run in op order
  // (no map of vectors: one allocation, not one per id).
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  for (uint32_t i = 0; i < ops.size(); ++i)
    if (ops[i].corr != 0) by_corr.push_back({ops[i].corr, i});
  SortRuns(by_corr);  // ids rise along each stream
  struct Run {
    size_t begin, end;
  };
  std::vector<Run> launched;  // the runs whose id a launch call carries

  // Launch delays: the first op of each correlation id.
  std::vector<double> delays_us, queued_us;  // queued: the part the stream was still busy with earlier work
  for (size_t b = 0, e = 0; b < by_corr.size(); b = e) {
    const int64_t corr = by_corr[b].first;
    for (e = b + 1; e < by_corr.size() && by_corr[e].first == corr;) ++e;
    auto l = launches.find(corr);
    if (l == launches.end()) continue;
    launched.push_back({b, e});
    l->second.ops_begin = b;
    l->second.ops_end = e;
    uint32_t first = by_corr[b].second;
    for (size_t j = b; j < e; ++j) {
      const uint32_t i = by_corr[j].second;
      ops[i].launch_start = std::min(l->second.start, ops[i].start);  // clocks that disagree: the device's start bounds it
      if (ops[i].start < ops[first].start) first = i;
    }
    const Op& f = ops[first];
    ops[first].delay = f.start - f.launch_start;
    delays_us.push_back(double(f.delay) / 1e3);
    // Queued behind earlier work on its stream: none where nothing ran on the stream before it.
    const int64_t queued =
        f.stream_free == INT64_MIN ? 0 : std::clamp<int64_t>(std::min(f.start, f.stream_free) - f.launch_start, 0, f.delay);
    queued_us.push_back(double(queued) / 1e3);
  }
  out.delays = int64_t(delays_us.size());
  if (!delays_us.empty()) {
    out.median_delay_us = Median(delays_us);
    out.median_queued_us = Median(queued_us);
    out.outlier_threshold_us = std::max(kDelayOutlierFactor * out.median_delay_us, kDelayOutlierFloorUs);
    std::vector<uint32_t> outliers;
    for (uint32_t i = 0; i < ops.size(); ++i)
      if (ops[i].delay >= 0 && double(ops[i].delay) / 1e3 > out.outlier_threshold_us) outliers.push_back(i);
    out.outlier_count = int64_t(outliers.size());
    std::sort(outliers.begin(), outliers.end(), [&](uint32_t a, uint32_t b) {
      return ops[a].delay != ops[b].delay ? ops[a].delay > ops[b].delay : ops[a].start < ops[b].start;
    });
    if (outliers.size() > kDelayOutliersKept) outliers.resize(kDelayOutliersKept);
    for (uint32_t i : outliers)
      out.outliers.push_back({std::string(trace.str(ops[i].name)), std::string(trace.str(launches.at(ops[i].corr).name)),
                              double(ops[i].delay) / 1e3, double(ops[i].launch_start - lo) / 1e6});
  }

  // Queues: +1 as a launch call starts, -1 as its op starts; time-weighted over the stream's span.
  std::vector<std::vector<std::pair<int64_t, int>>> marks(stream_names.size());
  for (const Run& run : launched)
    for (size_t j = run.begin; j < run.end; ++j) {
      const uint32_t i = by_corr[j].second;
      marks[ops[i].stream].push_back({ops[i].launch_start, +1});
      marks[ops[i].stream].push_back({ops[i].start, -1});
    }
  for (size_t s = 0; s < marks.size(); ++s) {
    auto& mk = marks[s];
    if (mk.empty()) continue;
    std::sort(mk.begin(), mk.end());
    StreamQueue q;
    q.stream = stream_names[s];
    int64_t n = 0;
    double area = 0;
    for (size_t i = 0; i < mk.size(); ++i) {
      n += mk[i].second;
      if (i + 1 < mk.size() && mk[i + 1].first == mk[i].first) continue;  // all changes at one time first
      q.max_queued = std::max(q.max_queued, n);
      if (i + 1 < mk.size()) area += double(n) * double(mk[i + 1].first - mk[i].first);
    }
    const double span = double(mk.back().first - mk.front().first);
    q.mean_queued = span > 0 ? area / span : 0;
    out.queues.push_back(std::move(q));
  }

  // Device work whose launch no operator encloses (kernels of a custom extension or Triton,
  // launched from Python): no operator's row can show it.
  for (const Run& run : launched)
    for (size_t j = run.begin; j < run.end; ++j) out.device_ms += double(ops[by_corr[j].second].dur) / 1e6;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    int64_t op_until = INT64_MIN;  // the end of the operators begun so far (the timeline is sorted by start)
    for (size_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      if (k == EventKind::kFrameworkOp || k == EventKind::kFrameworkOverhead) op_until = std::max(op_until, t.end_ns(uint32_t(i)));
      if (k != EventKind::kRuntime || t.ev.corr[i] == 0 || t.ev.start_ns[i] < op_until) continue;
      const Launch& l = launches.at(t.ev.corr[i]);
      for (size_t at = l.ops_begin; at < l.ops_end; ++at) out.unenclosed_ms += double(ops[by_corr[at].second].dur) / 1e6;
    }
  }

  // Each top operator: the launches it encloses on its thread, and the device work they reached.
  struct Acc {
    int64_t op_count = 0;
    std::map<StringId, OpKernelRow> rows;
    std::map<StringId, int64_t> delay_n;
  };
  std::unordered_map<StringId, size_t> wanted;  // name -> index into top_ops
  for (size_t i = 0; i < top_ops.size(); ++i) {
    bool found = false;
    const StringId id = trace.strings.Find(top_ops[i].name, &found);
    if (found) wanted.emplace(id, i);
  }
  std::vector<Acc> acc(top_ops.size());
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    std::unordered_map<StringId, int64_t> open_until;  // an instance of a name encloses until then
    for (size_t i = 0; i < t.ev.size(); ++i) {
      auto w = wanted.find(t.ev.name[i]);
      if (w == wanted.end()) continue;
      const int64_t end = t.end_ns(uint32_t(i));
      int64_t& until = open_until[t.ev.name[i]];
      if (t.ev.start_ns[i] < until) continue;  // nested in an instance of the same name
      until = end;
      Acc& a = acc[w->second];
      ++a.op_count;
      for (size_t j = i + 1; j < t.ev.size() && t.ev.start_ns[j] < end; ++j) {
        if (t.ev.kind[j] != EventKind::kRuntime || t.ev.corr[j] == 0) continue;
        // Every launch call of the worker's host threads is in `launches`, with its ops.
        const Launch& l = launches.at(t.ev.corr[j]);
        for (size_t at = l.ops_begin; at < l.ops_end; ++at) {
          const uint32_t o = by_corr[at].second;
          OpKernelRow& r = a.rows[ops[o].name];
          ++r.count;
          r.device_ms += double(ops[o].dur) / 1e6;
          if (ops[o].delay >= 0) {
            r.mean_delay_us += double(ops[o].delay) / 1e3;  // a sum until divided below
            ++a.delay_n[ops[o].name];
          }
        }
      }
    }
  }
  for (size_t i = 0; i < top_ops.size(); ++i) {
    OpKernels k;
    k.op = top_ops[i].name;
    k.op_count = acc[i].op_count;
    double delay_sum = 0;
    int64_t delay_n = 0;
    for (auto& [name, r] : acc[i].rows) {
      r.kernel = std::string(trace.str(name));
      k.kernels += r.count;
      k.device_ms += r.device_ms;
      const int64_t n = acc[i].delay_n[name];
      delay_sum += r.mean_delay_us;
      delay_n += n;
      r.mean_delay_us = n > 0 ? r.mean_delay_us / double(n) : 0;
      k.rows.push_back(std::move(r));
    }
    k.mean_delay_us = delay_n > 0 ? delay_sum / double(delay_n) : 0;
    std::sort(k.rows.begin(), k.rows.end(), [](const OpKernelRow& a, const OpKernelRow& b) {
      return a.device_ms != b.device_ms ? a.device_ms > b.device_ms : a.kernel < b.kernel;
    });
    if (k.rows.size() > kOpKernelRowsKept) k.rows.resize(kOpKernelRowsKept);
    out.ops.push_back(std::move(k));
  }
  return out;
}

}  // namespace stepdoctor
