#include "stepdoctor/analysis/whatif_replay.h"

#include <algorithm>
#include <numeric>
#include <queue>

#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/analysis/whatif.h"

namespace stepdoctor::whatif_replay {
namespace {

// The host's and the device's clocks disagree by tens of microseconds: device work that the
// record shows ending up to this long after a wait on the device ended was still what it waited
// for (a blocking copy's own copy ends "after" its call returns).
constexpr int64_t kSyncEndSlackNs = 100'000;

// When an op becomes ready on the host's clock: its launch call's end, or its own start where it
// began inside that call (a blocking copy runs while its call waits; a kernel may start before
// its launch call returns).
int64_t Key(const DeviceOp& op) {
  return op.launch_ns != DeviceOp::kNoLaunch ? std::min(op.launch_ns, op.start_ns) : op.start_ns;
}

}  // namespace

Replayed Replay(const StepModel& m, const Edit& e) {
  Replayed r;
  const int64_t lo = m.lo(), hi = m.hi();
  const size_t n = m.device.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return Key(m.device[a]) < Key(m.device[b]); });
  // The extra delay each op showed beyond its launch and its stream's previous op.
  std::vector<int64_t> lat(n, 0);
  {
    std::vector<int64_t> comm_ends;  // sorted ends of communication ops, for drop_comm_waits
    if (e.drop_comm_waits)
      for (const auto& op : m.device)
        if (op.role == DeviceWorkRole::kCollective) comm_ends.push_back(op.start_ns + op.dur_ns);
    std::sort(comm_ends.begin(), comm_ends.end());
    std::vector<int64_t> prev_end(m.stream_count, INT64_MIN);
    for (uint32_t i : order) {
      const DeviceOp& op = m.device[i];
      const int64_t ready = std::max(Key(op), prev_end[op.stream]);
      lat[i] = std::max<int64_t>(0, op.start_ns - ready);
      if (lat[i] > 0 && op.role != DeviceWorkRole::kCollective && !comm_ends.empty()) {
        // The latest communication end at or before this op's start, if it came after the op was ready.
        auto it = std::upper_bound(comm_ends.begin(), comm_ends.end(), op.start_ns);
        if (it != comm_ends.begin() && *std::prev(it) > ready) lat[i] = op.start_ns - *std::prev(it);
      }
      prev_end[op.stream] = std::max(prev_end[op.stream], op.start_ns + op.dur_ns);
    }
  }
  const auto& seg = m.host;
  std::vector<int64_t> s2(seg.size()), d2(seg.size());
  int64_t t2 = lo;
  // Maps an original host time to the replay's. REQUIRED: segments before `t` are replayed.
  // A device op that began inside a wait is the work waited for (a blocking copy): it keeps its
  // place in the wait (`inside_wait`); anything else there happens as the wait ends.
  auto map = [&](int64_t t, bool inside_wait = false) -> int64_t {
    if (t < lo) return t;
    auto it = std::upper_bound(seg.begin(), seg.end(), t, [](int64_t x, const HostSegment& h) { return x < h.start_ns; });
    size_t k = size_t(it - seg.begin()) - 1;
    if (t >= seg[k].end_ns) return s2[k] + d2[k] + (t - seg[k].end_ns);  // past the last segment
    if (seg[k].part == HostPart::kSync && !inside_wait) return s2[k] + d2[k];
    const int64_t d = seg[k].end_ns - seg[k].start_ns;
    return s2[k] + int64_t(double(t - seg[k].start_ns) * double(d2[k]) / double(d));
  };
  std::vector<int64_t> free2(m.stream_count, INT64_MIN);
  std::vector<Interval> busy2, own2;  // all replayed device work; the work the steps launched
  busy2.reserve(n);
  using Pending = std::pair<int64_t, int64_t>;  // (original end, replayed end)
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  int64_t done_orig = INT64_MIN, done_new = INT64_MIN;
  // The last step's device work, to carry its spill past the step's end.
  const int64_t last_start = m.steps.back().start_ns;
  int64_t last_end_orig = INT64_MIN, last_end_new = INT64_MIN;
  size_t next = 0;
  auto replay_op = [&](uint32_t i) {
    const DeviceOp& op = m.device[i];
    const int64_t key = Key(op);
    const int64_t start = std::max(map(key, key == op.start_ns), free2[op.stream]) + lat[i];
    const double f = (e.device_factor ? e.device_factor(op, e.which) : 1.0) * (e.op_factors ? (*e.op_factors)[i] : 1.0);
    const int64_t end = start + int64_t(double(op.dur_ns) / f);
    free2[op.stream] = end;
    busy2.push_back({start, end});
    if (key >= lo && key < hi) own2.push_back({start, end});
    pending.push({op.start_ns + op.dur_ns, end});
    if (key >= last_start) {
      last_end_orig = std::max(last_end_orig, op.start_ns + op.dur_ns);
      last_end_new = std::max(last_end_new, end);
    }
  };
  size_t step = 0;
  double work = 0, input = 0, sync = 0, startup = 0, untraced = 0;
  for (size_t k = 0; k < seg.size(); ++k) {
    const HostSegment& h = seg[k];
    while (next < n && Key(m.device[order[next]]) < h.start_ns) replay_op(order[next++]);
    s2[k] = t2;
    const int64_t d = h.end_ns - h.start_ns;
    int64_t dd = d;
    switch (h.part) {
      case HostPart::kWork: dd = int64_t(double(d) * e.work_scale); break;
      case HostPart::kInput: dd = int64_t(double(d) * e.input_scale); break;
      case HostPart::kCpuWork: dd = int64_t(double(d) * e.cpu_work_scale); break;
      case HostPart::kStartup:
      case HostPart::kUntraced: break;  // unknown work: no fix is known to remove it
      case HostPart::kSync: {
        // The work this wait could have waited for: what was launched before it and ended by its end.
        while (!pending.empty() && pending.top().first <= h.end_ns + kSyncEndSlackNs) {
          done_orig = std::max(done_orig, pending.top().first);
          done_new = std::max(done_new, pending.top().second);
          pending.pop();
        }
        const int64_t latency = std::max<int64_t>(0, h.end_ns - std::max(h.start_ns, done_orig));
        dd = std::max(t2, done_new) + latency - t2;
        break;
      }
    }
    while (step < m.steps.size() && m.steps[step].start_ns < h.start_ns) ++step;
    if (step < m.steps.size() && m.steps[step].start_ns == h.start_ns) dd += e.work_floor_ns;
    d2[k] = dd;
    t2 += dd;
    (h.part == HostPart::kWork || h.part == HostPart::kCpuWork ? work
     : h.part == HostPart::kInput    ? input
     : h.part == HostPart::kSync     ? sync
     : h.part == HostPart::kUntraced ? untraced
                                     : startup) += double(dd);
  }
  while (next < n) replay_op(order[next++]);
  // Step boundaries in the replay; the last step ends when its device work does, less the spill
  // past the step's end the trace itself showed.
  const size_t ns = m.steps.size();
  std::vector<int64_t> b_start(ns), b_end(ns);
  for (size_t i = 0; i < ns; ++i) {
    b_start[i] = map(m.steps[i].start_ns);
    b_end[i] = m.steps[i].end_ns >= hi ? t2 : map(m.steps[i].end_ns);
  }
  if (last_end_new != INT64_MIN) {
    const int64_t spill = std::max<int64_t>(0, last_end_orig - hi);
    b_end[ns - 1] = std::max(b_end[ns - 1], last_end_new - spill);
  }
  // The steps cannot take less than the device needs for the work they launched (the spill
  // credit above assumes the next, unrecorded step's work hides it, which a device-bound replay
  // cannot).
  const int64_t device_floor = b_start[0] + TotalLength(MakeIntervalSet(std::move(own2)));
  if (device_floor > b_end[ns - 1]) {
    // Device-bound: in steady state every step takes its share of the device's work.
    for (size_t i = 0; i < ns; ++i) r.step_ms.push_back(double(device_floor - b_start[0]) / double(ns) / 1e6);
    b_end[ns - 1] = device_floor;
  } else {
    for (size_t i = 0; i < ns; ++i) r.step_ms.push_back(double(b_end[i] - b_start[i]) / 1e6);
  }
  const double per = 1e6 * double(ns);
  r.work_ms = work / per;
  r.input_ms = input / per;
  r.sync_ms = sync / per;
  r.startup_ms = startup / per;
  r.untraced_ms = untraced / per;
  r.device_busy_ms = double(LengthWithin(MakeIntervalSet(std::move(busy2)), b_start[0], b_end[ns - 1])) / per;
  return r;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// A replay on the measured scale. The replay of the trace as recorded misses the measured step by
// up to kReplayMaxErrorPct; a fix's effect is the ratio of two replays, so that error cancels (a
// fix that changes nothing predicts the measured step, never a slowdown). Figures measured
// outside the replay (a batch's load time) are not scaled.
Replayed Calibrated(const StepModel& m, const Edit& e, const Prediction& p) {
  Replayed r = Replay(m, e);
  if (p.model_baseline_ms <= 0 || p.baseline_step_ms <= 0) return r;
  const double k = p.baseline_step_ms / p.model_baseline_ms;
  // The device's work keeps its measured length: steps scaled down stop at it.
  const double floor_ms = r.device_busy_ms;
  for (double& ms : r.step_ms) ms = std::max(ms * k, std::min(ms, floor_ms));
  for (double* ms : {&r.work_ms, &r.input_ms, &r.sync_ms, &r.startup_ms, &r.untraced_ms}) *ms *= k;
  return r;
}

void FillParts(const Replayed& r, Prediction* p) {
  p->critical_path = {{"device_busy", r.device_busy_ms}, {"host_work", r.work_ms}, {"input", r.input_ms},
                      {"sync", r.sync_ms},               {"startup", r.startup_ms},
                      {"untraced", r.untraced_ms}};
  p->critical_path.erase(std::remove_if(p->critical_path.begin(), p->critical_path.end(),
                                        [](const StepPart& s) { return s.ms < 0.005; }),
                         p->critical_path.end());
  std::sort(p->critical_path.begin(), p->critical_path.end(), [](const StepPart& a, const StepPart& b) { return a.ms > b.ms; });
  const double step = Mean(r.step_ms);
  const double host = r.work_ms + r.input_ms + r.startup_ms + r.untraced_ms;
  p->bound_by = r.device_busy_ms >= 0.9 * step || r.device_busy_ms >= host ? "device" : r.input_ms > r.work_ms ? "input" : "host";
}

void SetPoint(const Replayed& r, Prediction* p) {
  p->predicted = true;
  p->predicted_step_ms = Mean(r.step_ms);
  p->predicted_median_ms = Median(r.step_ms);
  p->low_ms = p->high_ms = p->predicted_step_ms;
  FillParts(r, p);
}

// Widens [low, high] to the replay's tolerance and sets the speed-up.
void Finish(Prediction* p) {
  if (!p->predicted) return;
  p->low_ms = std::min(p->low_ms, p->predicted_step_ms * (1 - kReplayTolerancePct / 100));
  p->high_ms = std::max(p->high_ms, p->predicted_step_ms * (1 + kReplayTolerancePct / 100));
  p->speedup = p->predicted_step_ms > 0 ? p->baseline_step_ms / p->predicted_step_ms : 1;
  p->throughput_speedup = p->speedup * p->batch_scale;
}

}  // namespace stepdoctor::whatif_replay
