#include "stepdoctor/analysis/repeated_iterations.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <string_view>
#include <unordered_set>

namespace stepdoctor {
namespace {

// The repeats must span at least this share of the sequence's time: set-up before the loop (a
// model built of identical blocks) is not the loop.
constexpr double kMinCover = 0.5;
// Bounds on the search: the distinct names a sequence may start with, and the periods tried
// from each start (a period is the distance to a later event of the same name).
constexpr int kMaxStartNames = 4;
constexpr int kMaxPeriods = 64;
constexpr double kMinComputeShare = 0.1;
constexpr double kSimilarFactor = 2.0;

struct Item {
  StringId name;
  int64_t start = 0, end = 0;
  bool ingress = false;
  bool compute = false;  // a kernel or a collective on a device; on a host, any operator but input
  bool launches = false; // on a host: the operator launched a kernel that ran on the device
};

struct Repeat {
  size_t start = 0, period = 0;
  int repeats = 0;
  int64_t covered_ns = 0;
};

// Operators that make a tensor from nothing the loop already holds: synthetic or host data
// entering an iteration. In-place initialisers (uniform_, normal_) and allocation (empty) are
// left out: they fill a model's parameters while it is built.
bool MakesInput(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "aten::rand",        "aten::randn",  "aten::randint", "aten::randperm",   "aten::rand_like",
      "aten::randn_like",  "aten::randint_like", "aten::normal", "aten::tensor", "aten::lift_fresh",
      "aten::scalar_tensor"};
  for (auto k : kNames)
    if (n == k) return true;
  return false;
}

// Whether a repeat is a loop's iteration, not a run of like calls (a model's parameters copied to
// the device one by one, each `aten::to` with a host-to-device copy): each repeat computes (a
// kernel on a device; on a host, operators other than input hold kMinComputeShare of the
// operators' time, or an operator in every repeat launched a kernel: a loop whose host makes its
// data for seconds and computes on it in milliseconds), and the repeats after the first (which
// may be warm-up) mostly last about the same (within kSimilarFactor of their median).
bool IsIteration(const std::vector<Item>& items, size_t s, size_t p, int reps, bool device) {
  int64_t compute_ns = 0, all_ns = 0;
  bool kernel = false;
  for (size_t k = s; k < s + size_t(reps) * p; ++k) {
    all_ns += items[k].end - items[k].start;
    if (items[k].compute) compute_ns += items[k].end - items[k].start, kernel = true;
  }
  bool each_launches = !device;
  for (int r = 0; r < reps && each_launches; ++r)
    each_launches = std::any_of(items.begin() + long(s + size_t(r) * p), items.begin() + long(s + size_t(r + 1) * p),
                                [](const Item& it) { return it.launches; });
  if (device ? !kernel : double(compute_ns) < kMinComputeShare * double(all_ns) && !each_launches) return false;
  std::vector<int64_t> dur;
  for (int r = 1; r + 1 < reps; ++r) dur.push_back(items[s + size_t(r + 1) * p].start - items[s + size_t(r) * p].start);
  if (dur.size() < 2) return true;
  std::vector<int64_t> sorted = dur;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = double(sorted[sorted.size() / 2]);
  size_t similar = 0;
  for (int64_t d : dur) similar += double(d) * kSimilarFactor >= median && double(d) <= median * kSimilarFactor;
  return 3 * similar >= 2 * dur.size();
}

// The longest-covering repeat of a sequence: from the first event of each name that brings
// input, the period that repeats furthest (at least kMinRepeatedIterations times).
Repeat FindRepeat(const std::vector<Item>& items, bool device) {
  Repeat best;
  const size_t n = items.size();
  std::vector<StringId> tried;
  for (size_t s = 0; s < n && int(tried.size()) < kMaxStartNames; ++s) {
    if (!items[s].ingress || std::find(tried.begin(), tried.end(), items[s].name) != tried.end()) continue;
    tried.push_back(items[s].name);
    int periods = 0;
    for (size_t j = s + 1; j < n && periods < kMaxPeriods; ++j) {
      if (items[j].name != items[s].name) continue;
      ++periods;
      const size_t p = j - s;
      if ((n - s) < p * kMinRepeatedIterations) break;
      size_t m = 0;
      while (s + m + p < n && items[s + m].name == items[s + m + p].name) ++m;
      const int reps = int((m + p) / p);
      if (reps < kMinRepeatedIterations) continue;
      const int64_t covered = items[s + size_t(reps) * p - 1].end - items[s].start;
      if (covered > best.covered_ns && IsIteration(items, s, p, reps, device)) best = {s, p, reps, covered};
      if (s + m + p >= n) break;  // repeats to the end: a longer period covers no more
    }
  }
  if (best.repeats == 0) return {};
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& it : items) lo = std::min(lo, it.start), hi = std::max(hi, it.end);
  if (double(best.covered_ns) < kMinCover * double(hi - lo)) return {};
  return best;
}

// A host thread's outermost operators (and input waits), Python frames and annotations around
// them skipped. An operator is input where its name makes a tensor, or a copy it launched landed
// on the device as a host-to-device copy.
std::vector<Item> HostItems(const Trace& trace, const Timeline& t, const std::unordered_set<int64_t>& h2d_corr,
                            const std::unordered_set<int64_t>& kernel_corr) {
  std::vector<Item> out;
  int64_t open_until = INT64_MIN;
  std::vector<int8_t> makes(trace.strings.size(), -1);
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    const EventKind k = t.ev.kind[i];
    if (t.ev.start_ns[i] < open_until) {
      if (!out.empty() && t.ev.corr[i] != 0 && h2d_corr.count(t.ev.corr[i])) out.back().ingress = true, out.back().compute = false;
      if (!out.empty() && t.ev.corr[i] != 0 && kernel_corr.count(t.ev.corr[i])) out.back().launches = true;
      continue;
    }
    if (k != EventKind::kFrameworkOp && k != EventKind::kInputWait) continue;
    open_until = t.end_ns(i);
    const StringId name = t.ev.name[i];
    // The operator's own link to its device work (the autograd profiler's export links operators,
    // not runtime calls) counts as a nested call's would.
    bool ingress = k == EventKind::kInputWait || (t.ev.corr[i] != 0 && h2d_corr.count(t.ev.corr[i]));
    if (!ingress && name.v < makes.size()) {
      if (makes[name.v] < 0) makes[name.v] = MakesInput(trace.str(name));
      ingress = makes[name.v] != 0;
    }
    out.push_back({name, t.ev.start_ns[i], t.end_ns(i), ingress, !ingress,
                   t.ev.corr[i] != 0 && kernel_corr.count(t.ev.corr[i]) > 0});
  }
  return out;
}

}  // namespace

RepeatedIterations TraceToRepeatedIterations(const Trace& trace, WorkerId worker) {
  RepeatedIterations out;
  const bool per_operator = worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).device_times_per_operator;
  std::unordered_set<int64_t> h2d_corr, kernel_corr;
  std::vector<Item> device;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      const EventKind k = t.ev.kind[i];
      if (!IsDeviceActivity(k)) continue;
      // Where device time is per operator, a copy's direction is not recorded: the batch's copy to
      // the device is one of them.
      const bool h2d = k == EventKind::kMemcpyH2D || (k == EventKind::kMemcpyOther && per_operator);
      if (h2d && t.ev.corr[i] != 0) h2d_corr.insert(t.ev.corr[i]);
      if (k == EventKind::kKernel && t.ev.corr[i] != 0) kernel_corr.insert(t.ev.corr[i]);
      device.push_back({t.ev.name[i], t.ev.start_ns[i], t.end_ns(i), h2d,
                        k == EventKind::kKernel || k == EventKind::kCollective});
    }
  }
  const Timeline* best_t = nullptr;
  std::vector<Item> best_items;
  Repeat best;
  bool host_ops = false;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    std::vector<Item> items = HostItems(trace, t, h2d_corr, kernel_corr);
    host_ops |= !items.empty();
    Repeat r = FindRepeat(items, false);
    if (r.repeats > 0 && r.covered_ns > best.covered_ns) best = r, best_t = &t, best_items = std::move(items);
  }
  std::string what;
  if (best_t) {
    what = fmt::format("a repeated sequence of {} outermost operator{} on {}", best.period,
                       best.period == 1 ? "" : "s", best_t->name);
  } else if (!host_ops && !device.empty()) {
    // Device activity alone: its events in time order across streams.
    std::stable_sort(device.begin(), device.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
    best = FindRepeat(device, true);
    if (best.repeats == 0) return out;
    best_items = std::move(device);
    what = fmt::format("a repeated sequence of {} device event{}", best.period, best.period == 1 ? "" : "s");
  } else {
    return out;
  }
  // Each repeat from its first event to the next one's; the last one's end (what the loop does
  // after its last event) is not in the sequence, so it is left out.
  for (int r = 0; r + 1 < best.repeats; ++r)
    out.steps.push_back({r + 1, best_items[best.start + size_t(r) * best.period].start,
                         best_items[best.start + size_t(r + 1) * best.period].start});
  out.repeats = best.repeats;
  out.source = fmt::format("iterations inferred from {} that starts with input ({}), repeated {} times (no step markers)",
                           what, trace.str(best_items[best.start].name), best.repeats);
  return out;
}

}  // namespace stepdoctor
