#include "stepdoctor/analysis/trace_to_device_utilization.h"

#include <algorithm>
#include <unordered_set>

namespace stepdoctor {
namespace {

// Correlation ids of host events that start before the last ProfilerStep of their worker, or
// an empty optional where the worker has fewer than two steps (then nothing is filtered).
struct WorkerFilter {
  bool active = false;
  std::unordered_set<int64_t> corrs;
};

WorkerFilter MakeFilter(const Trace& trace, WorkerId w) {
  WorkerFilter f;
  int64_t last_step = INT64_MIN;
  int steps = 0;
  for (const auto& t : trace.timelines) {
    if (t.worker != w || t.kind == TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kStepMarker && trace.str(t.ev.name[i]).substr(0, 13) == "ProfilerStep#") {
        ++steps;
        last_step = std::max(last_step, t.ev.start_ns[i]);
      }
  }
  if (steps < 2) return f;
  f.active = true;
  for (const auto& t : trace.timelines) {
    if (t.worker != w || t.kind == TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size() && t.ev.start_ns[i] < last_step; ++i)
      if (t.ev.corr[i] != 0) f.corrs.insert(t.ev.corr[i]);
  }
  return f;
}

}  // namespace

std::vector<DeviceActivity> TraceToDeviceActivity(const Trace& trace, bool hta_filter) {
  std::vector<DeviceActivity> out;
  std::vector<WorkerFilter> filters(trace.workers.size());
  if (hta_filter)
    for (size_t w = 0; w < trace.workers.size(); ++w) filters[w] = MakeFilter(trace, WorkerId{uint32_t(w)});

  for (size_t d = 0; d < trace.devices.size(); ++d) {
    const Device& dev = trace.devices[d];
    if (dev.kind == DeviceKind::kHostCpu) continue;
    std::vector<Interval> all, compute, comm, mem;
    int64_t kernels = 0;
    for (const auto& t : trace.timelines) {
      if (t.device.v != d || t.kind != TimelineKind::kDeviceStream) continue;
      const WorkerFilter& f = filters.empty() || !t.worker.valid() ? WorkerFilter() : filters[t.worker.v];
      for (size_t i = 0; i < t.ev.size(); ++i) {
        EventKind k = t.ev.kind[i];
        if (!IsDeviceActivity(k)) continue;
        if (f.active && !f.corrs.count(t.ev.corr[i])) continue;
        Interval iv{t.ev.start_ns[i], t.ev.start_ns[i] + t.ev.dur_ns[i]};
        all.push_back(iv);
        if (k == EventKind::kKernel) {
          compute.push_back(iv);
          ++kernels;
        } else if (k == EventKind::kCollective) {
          comm.push_back(iv);
          ++kernels;
        } else {
          mem.push_back(iv);
        }
      }
    }
    if (all.empty()) continue;
    DeviceActivity a;
    a.device = DeviceId{uint32_t(d)};
    a.all = MakeIntervalSet(std::move(all));
    a.compute = MakeIntervalSet(std::move(compute));
    a.communication = MakeIntervalSet(std::move(comm));
    a.memory = MakeIntervalSet(std::move(mem));
    if (a.all.empty()) continue;  // only zero-length records: no active span
    a.span_start_ns = a.all.front().start;
    a.span_end_ns = a.all.back().end;
    a.kernel_count = kernels;
    out.push_back(std::move(a));
  }
  return out;
}

DeviceUtilization DeviceActivityToUtilization(const Trace& trace, const DeviceActivity& a) {
  const Device& dev = trace.device(a.device);
  DeviceUtilization u;
  u.worker = dev.worker.valid() ? trace.worker(dev.worker).hostname : "";
  if (dev.worker.valid() && trace.worker(dev.worker).rank >= 0)
    u.worker += " (rank " + std::to_string(trace.worker(dev.worker).rank) + ")";
  std::string kind = dev.kind == DeviceKind::kTpu ? "TPU " : "GPU ";
  u.device = kind + std::to_string(dev.index);
  if (!dev.name.empty() && dev.name != u.device) u.device += " (" + dev.name + ")";
  double span = double(a.span_end_ns - a.span_start_ns);
  u.span_us = span / 1e3;
  u.kernel_count = a.kernel_count;
  if (span <= 0) return u;
  double busy = double(TotalLength(a.all));
  double compute = double(TotalLength(a.compute));
  u.idle_pct = 100.0 * (span - busy) / span;
  u.compute_pct = 100.0 * compute / span;
  u.non_compute_pct = 100.0 - u.idle_pct - u.compute_pct;
  if (!a.communication.empty()) {
    double comm = double(TotalLength(a.communication));
    u.comm_comp_overlap_pct = 100.0 * double(TotalLength(Intersect(a.communication, a.compute))) / comm;
  }
  return u;
}

}  // namespace stepdoctor
