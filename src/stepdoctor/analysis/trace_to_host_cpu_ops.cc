#include "stepdoctor/analysis/trace_to_host_cpu_ops.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "stepdoctor/analysis/sort_runs.h"
#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {

bool MayWaitOnDeviceOpName(std::string_view name) {
  // Copies between host and device, reads of a device value, and explicit waits block the host
  // on the device; a PyTorch operator name ends in the op ("aten::to", "aten::_local_scalar_dense").
  const size_t colon = name.rfind("::");
  std::string_view op = colon == std::string_view::npos ? name : name.substr(colon + 2);
  for (std::string_view w : {"to", "_to_copy", "copy_", "copy", "cpu", "cuda", "item", "_local_scalar_dense",
                             "nonzero", "masked_select", "unique", "_unique2", "synchronize", "wait", "record_stream"})
    if (op == w) return true;
  return name.find("ynchroniz") != std::string_view::npos || name.find("Memcpy") != std::string_view::npos;
}

namespace {

// Names by total time, the longest first (at most 3).
std::vector<std::string> TopNames(const Trace& trace, const std::unordered_map<StringId, int64_t>& by_name) {
  std::vector<std::pair<int64_t, StringId>> names;
  for (const auto& [n, ns] : by_name) names.push_back({ns, n});
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out.push_back(std::string(trace.str(names[i].second)));
  return out;
}

// The operators' spans, and their names by total time (at most 3).
HostCpuOps Finish(const Trace& trace, std::vector<Interval> raw, const std::unordered_map<StringId, int64_t>& by_name,
                  bool judged_by_name, HostCpuOps reads) {
  HostCpuOps out = std::move(reads);
  out.judged_by_name = judged_by_name;
  out.time = MakeIntervalSet(std::move(raw));
  out.top = TopNames(trace, by_name);
  return out;
}

// The operators that can wait on the device, outermost of nested ones, inside [lo, hi).
HostCpuOps DeviceReads(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi) {
  HostCpuOps out;
  std::vector<Interval> raw;
  std::unordered_map<StringId, int64_t> by_name;
  std::vector<int8_t> waits(trace.strings.size(), -1);  // per name: MayWaitOnDeviceOpName, once
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    int64_t wait_end = INT64_MIN;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
      const int64_t s = std::max(lo, t.ev.start_ns[i]), e = std::min(hi, t.end_ns(i));
      if (t.ev.start_ns[i] < wait_end || e <= s) continue;
      int8_t& w = waits[t.ev.name[i].v];
      if (w < 0) w = MayWaitOnDeviceOpName(trace.str(t.ev.name[i])) ? 1 : 0;
      if (w == 0) continue;
      wait_end = t.end_ns(i);
      raw.push_back({s, e});
      by_name[t.ev.name[i]] += e - s;
    }
  }
  out.device_reads = MakeIntervalSet(std::move(raw));
  out.read_top = TopNames(trace, by_name);
  return out;
}

}  // namespace

HostCpuOps TraceToHostCpuOps(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi, bool device_recorded) {
  // Where the host handed the device work, on any thread of the worker: calls named for it, or
  // any runtime call whose correlation id reaches device work (MTIA's runFunction, XPU enqueues).
  std::unordered_set<int64_t> device_corrs;
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kDeviceStream)
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.corr[i] != 0) device_corrs.insert(t.ev.corr[i]);
  std::vector<int64_t> launches;
  std::vector<int8_t> work_call(trace.strings.size(), -1);  // per name: IsDeviceWorkCallName, once
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kRuntime) continue;
      int8_t& named = work_call[t.ev.name[i].v];
      if (named < 0) named = IsDeviceWorkCallName(trace.str(t.ev.name[i])) ? 1 : 0;
      if (named == 1 || (t.ev.corr[i] != 0 && device_corrs.count(t.ev.corr[i]))) launches.push_back(t.ev.start_ns[i]);
    }
  }
  SortRuns(launches);  // each thread's calls come in time order
  HostCpuOps out;
  // A TensorFlow 1 session's timeline places each op on its device's lane: an op on a
  // "/device:CPU:N" lane ran on the CPU, launches or none (TF1 records no runtime calls). Its
  // own bookkeeping ops (_Arg, _Recv, _Send, _Retval: the leading underscore) move data or wait.
  if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session) {
    std::vector<Interval> raw;
    std::unordered_map<StringId, int64_t> by_name;
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread || t.name.find("/device:CPU:") == std::string::npos)
        continue;
      int64_t cur_end = INT64_MIN;
      for (uint32_t i = 0; i < t.ev.size(); ++i) {
        if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
        const int64_t s = t.ev.start_ns[i], e = t.end_ns(i);
        if (s < cur_end) continue;
        cur_end = e;
        if (e - s < kCpuOpMinNs || e <= lo || s >= hi || trace.str(t.ev.name[i]).substr(0, 1) == "_") continue;
        raw.push_back({s, e});
        by_name[t.ev.name[i]] += e - s;
      }
    }
    return Finish(trace, std::move(raw), by_name, false, {});
  }
  // No launch recorded at all (a producer that does not trace runtime calls): beside recorded
  // device work nothing tells an operator that computes on the CPU from one that feeds the device.
  // With no device record either (the device tracer was off), a PyTorch eager operator that
  // feeds the device only queues work and returns in microseconds; one that holds the host for a
  // millisecond or more is computing there, unless it can wait on the device (a copy, a read of a
  // device value). A graph call (a tf.function) runs its whole graph inside: no such reading.
  const bool no_launches = launches.empty();
  if (!device_recorded) out = DeviceReads(trace, worker, lo, hi);
  if (no_launches && (device_recorded || FrameworkOf(trace, worker) != Framework::kPyTorch)) return out;
  out.judged_by_name = no_launches;
  std::vector<Interval> raw;
  std::unordered_map<StringId, int64_t> by_name;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    int64_t cur_end = INT64_MIN;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
      const int64_t s = t.ev.start_ns[i], e = t.end_ns(i);
      if (s < cur_end) continue;  // nested in an earlier top-level operator
      cur_end = e;
      if (e - s < kCpuOpMinNs || e <= lo || s >= hi) continue;
      if (no_launches && MayWaitOnDeviceOpName(trace.str(t.ev.name[i]))) continue;
      auto l = std::lower_bound(launches.begin(), launches.end(), s);
      if (l != launches.end() && *l < e) continue;  // it launched device work
      // Operators nested inside that can wait on the device (a .item() inside a wrapper or a
      // compiled region) hold the host waiting, not computing: their time is not the op's work.
      std::vector<Interval> pieces;
      int64_t from = s;
      for (uint32_t j = i + 1; j < t.ev.size() && t.ev.start_ns[j] < e; ++j) {
        if (t.ev.kind[j] != EventKind::kFrameworkOp || t.ev.start_ns[j] < from) continue;
        if (!MayWaitOnDeviceOpName(trace.str(t.ev.name[j]))) continue;
        if (t.ev.start_ns[j] > from) pieces.push_back({from, t.ev.start_ns[j]});
        from = std::min(e, t.end_ns(j));
      }
      if (from < e) pieces.push_back({from, e});
      int64_t own = 0;
      for (const Interval& p : pieces) own += p.end - p.start;
      if (own < kCpuOpMinNs) continue;
      raw.insert(raw.end(), pieces.begin(), pieces.end());
      by_name[t.ev.name[i]] += own;
    }
  }
  const bool by_name_only = out.judged_by_name;
  return Finish(trace, std::move(raw), by_name, by_name_only, std::move(out));
}

}  // namespace stepdoctor
