#include "stepdoctor/analysis/trace_to_cross_rank.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "stepdoctor/analysis/statistics.h"

namespace stepdoctor {
namespace {

bool Has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Send/recv move data between two ranks; the group does not wait on them.
bool IsPointToPoint(std::string_view name) {
  std::string low(name);
  for (char& c : low) c = char(std::tolower(static_cast<unsigned char>(c)));
  return Has(low, "sendrecv") || Has(low, "send_recv") || Has(low, ":send") || Has(low, ":recv") ||
         Has(low, "_send") || Has(low, "_recv");
}

// On the host, only ops whose time covers the transfer: gloo's work runs in its own record, while
// c10d's dispatch op, record_param_comms and ProcessGroupNCCL's nccl:* ranges only enqueue the
// work (it runs on the device, or on another thread) and end long before it does.
bool HostOpCoversTransfer(std::string_view name) {
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  return !starts("c10d::") && !starts("record_param_comms") && !starts("nccl:");
}

// The name a kind is reported under: a kernel's name up to its argument list.
std::string KindName(std::string_view name) {
  size_t paren = name.find('(');
  std::string_view s = paren == std::string_view::npos ? name : name.substr(0, paren);
  if (s.size() > 80) s = s.substr(0, 80);
  return std::string(s);
}

// The step holding time `t`: its number, or nothing. `steps` sorted and disjoint.
std::optional<int64_t> StepOf(const StepWindows& w, int64_t t) {
  if (w.whole_window) return t >= w.window_start_ns && t <= w.window_end_ns ? std::optional<int64_t>(0) : std::nullopt;
  auto it = std::upper_bound(w.steps.begin(), w.steps.end(), t,
                             [](int64_t v, const StepWindow& s) { return v < s.start_ns; });
  if (it == w.steps.begin()) return std::nullopt;
  --it;
  if (t >= it->end_ns) return std::nullopt;
  return it->number;
}

// A collective matched on every rank: its start and end on each rank's own clock.
struct Matched {
  int64_t step = 0;
  std::string_view name;
  const RankCollectives::Record* first = nullptr;  // the first rank's record (its recorded size)
  std::vector<int64_t> start, end;  // by rank
};

// Collectives matched by step and place in the step; steps whose collectives differ are counted.
using Records = std::vector<RankCollectives::Record>;
std::string_view NameOf(const RankCollectives& r, const RankCollectives::Record& c) {
  return c.name < r.names.size() ? std::string_view(r.names[c.name]) : std::string_view();
}

std::vector<Matched> Match(const std::vector<const RankCollectives*>& ranks, const std::vector<const Records*>& per_rank,
                           int* unmatched_steps) {
  // Each rank's collectives by step: [first, last) ranges into its sorted list.
  std::vector<std::map<int64_t, std::pair<size_t, size_t>>> by_step(per_rank.size());
  for (size_t r = 0; r < per_rank.size(); ++r)
    for (size_t i = 0; i < per_rank[r]->size(); ++i) {
      auto [it, fresh] = by_step[r].try_emplace((*per_rank[r])[i].step, i, i + 1);
      if (!fresh) it->second.second = i + 1;
    }
  std::vector<Matched> out;
  for (const auto& [step, ref] : by_step[0]) {
    const size_t n = ref.second - ref.first;
    bool same = true;
    for (size_t r = 1; r < per_rank.size() && same; ++r) {
      auto it = by_step[r].find(step);
      same = it != by_step[r].end() && it->second.second - it->second.first == n;
      for (size_t k = 0; same && k < n; ++k)
        same = NameOf(*ranks[r], (*per_rank[r])[it->second.first + k]) ==
               NameOf(*ranks[0], (*per_rank[0])[ref.first + k]);
    }
    if (!same) {
      ++*unmatched_steps;
      continue;
    }
    for (size_t k = 0; k < n; ++k) {
      Matched m;
      m.step = step;
      m.first = &(*per_rank[0])[ref.first + k];
      m.name = NameOf(*ranks[0], *m.first);
      for (size_t r = 0; r < per_rank.size(); ++r) {
        const auto& c = (*per_rank[r])[by_step[r].at(step).first + k];
        m.start.push_back(c.start_ns);
        m.end.push_back(c.end_ns);
      }
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Whether every rank's records all carry a process group and a sequence number.
bool AllSequenced(const std::vector<const RankCollectives*>& ranks, const std::vector<const Records*>& per_rank) {
  for (size_t r = 0; r < per_rank.size(); ++r) {
    if (per_rank[r]->empty()) return false;
    for (const auto& c : *per_rank[r])
      if (c.seq < 0 || c.group < 0 || size_t(c.group) >= ranks[r]->groups.size()) return false;
  }
  return true;
}

// Collectives matched by (process group, sequence number): in the first rank's order, those every
// rank has under the same name; the first rank's steps holding one that some rank lacks are counted.
std::vector<Matched> MatchBySequence(const std::vector<const RankCollectives*>& ranks,
                                     const std::vector<const Records*>& per_rank, int* unmatched_steps) {
  std::vector<std::map<std::pair<std::string_view, int64_t>, size_t>> index(per_rank.size());
  for (size_t r = 0; r < per_rank.size(); ++r)
    for (size_t i = 0; i < per_rank[r]->size(); ++i) {
      const auto& c = (*per_rank[r])[i];
      index[r].try_emplace({std::string_view(ranks[r]->groups[size_t(c.group)]), c.seq}, i);  // the first of a repeat
    }
  std::vector<Matched> out;
  std::map<int64_t, bool> step_short;  // the first rank's steps: whether one of its collectives went unmatched
  for (size_t i = 0; i < per_rank[0]->size(); ++i) {
    const auto& c0 = (*per_rank[0])[i];
    const auto key = std::make_pair(std::string_view(ranks[0]->groups[size_t(c0.group)]), c0.seq);
    if (index[0].at(key) != i) continue;  // a repeat of a key already taken
    Matched m;
    m.step = c0.step;
    m.first = &c0;
    m.name = NameOf(*ranks[0], c0);
    bool all = true;
    for (size_t r = 0; r < per_rank.size() && all; ++r) {
      auto it = index[r].find(key);
      all = it != index[r].end() && NameOf(*ranks[r], (*per_rank[r])[it->second]) == m.name;
      if (all) {
        m.start.push_back((*per_rank[r])[it->second].start_ns);
        m.end.push_back((*per_rank[r])[it->second].end_ns);
      }
    }
    step_short[c0.step] |= !all;
    if (all) out.push_back(std::move(m));
  }
  for (const auto& [step, short_of] : step_short) *unmatched_steps += short_of;
  return out;
}

}  // namespace

RankCollectives TraceToRankCollectives(const Trace& trace, const RankInput& in) {
  RankCollectives out;
  std::unordered_map<int64_t, int64_t> launch_at;  // correlation id -> host launch start
  for (const auto& t : trace.timelines) {
    if (t.worker != in.worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.corr[i] != 0 && t.ev.kind[i] == EventKind::kRuntime) launch_at.emplace(t.ev.corr[i], t.ev.start_ns[i]);
  }
  std::unordered_map<uint32_t, uint32_t> name_index;  // trace StringId -> index into out.names
  auto name_of = [&](StringId id) {
    auto [it, fresh] = name_index.try_emplace(id.v, uint32_t(out.names.size()));
    if (fresh) out.names.emplace_back(trace.str(id));
    return it->second;
  };
  // What the trace records of each device collective: kind, size, group, sequence number.
  std::unordered_map<uint64_t, CollectiveCall> calls;
  for (CollectiveCall& c : TraceToCollectiveCalls(trace, in.worker)) calls.emplace(CollectiveCallKey(c.timeline, c.event), c);
  std::unordered_map<std::string, int32_t> group_index;
  auto group_of = [&](const std::string& g) {
    auto [it, fresh] = group_index.try_emplace(g, int32_t(out.groups.size()));
    if (fresh) out.groups.push_back(g);
    return it->second;
  };
  for (size_t ti = 0; ti < trace.timelines.size(); ++ti) {
    const Timeline& t = trace.timelines[ti];
    if (t.worker != in.worker || t.kind == TimelineKind::kDerived) continue;
    const bool device = t.kind == TimelineKind::kDeviceStream;
    int64_t open_end = INT64_MIN;  // end of the enclosing collective op on this host thread
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kCollective || IsPointToPoint(trace.str(t.ev.name[i]))) continue;
      if (!device && !HostOpCoversTransfer(trace.str(t.ev.name[i]))) continue;
      ++(device ? out.device_total : out.host_total);
      const int64_t start = t.ev.start_ns[i], end = start + t.ev.dur_ns[i];
      if (!device) {
        // host ops nested in another collective op of their thread count once
        if (start < open_end) continue;
        open_end = end;
      }
      // A kernel may run after its step's host range ends: it belongs to the step that launched it.
      int64_t at = start;
      if (device && t.ev.corr[i] != 0)
        if (auto it = launch_at.find(t.ev.corr[i]); it != launch_at.end()) at = it->second;
      if (auto step = StepOf(*in.steps, at)) {
        RankCollectives::Record rec{*step, name_of(t.ev.name[i]), start, end};
        rec.kind = ClassifyCollective(trace.str(t.ev.name[i]));
        if (device)
          if (auto it = calls.find(CollectiveCallKey(uint32_t(ti), uint32_t(i))); it != calls.end()) {
            const CollectiveCall& c = it->second;
            if (!c.group.empty()) rec.group = group_of(c.group);
            rec.seq = c.seq;
            rec.kind = c.kind;
            rec.group_size = c.group_size;
            if (c.first_of_call) rec.bytes = c.bytes;
          }
        (device ? out.device : out.host).push_back(rec);
      }
    }
  }
  for (Records* r : {&out.device, &out.host})
    std::sort(r->begin(), r->end(), [](const auto& a, const auto& b) {
      return a.step != b.step ? a.step < b.step : a.start_ns < b.start_ns;
    });
  return out;
}

CrossRank RankCollectivesToCrossRank(const std::vector<const RankCollectives*>& ranks) {
  CrossRank out;
  if (ranks.size() < 2) return out;
  bool all_device = true, all_host = true;
  for (const RankCollectives* r : ranks) {
    all_device &= r->device_total > 0;
    all_host &= r->host_total > 0;
  }
  if (!all_device && !all_host) return out;
  out.attempted = true;
  out.collectives_on = all_device ? "device" : "host";
  out.ranks.resize(ranks.size());

  std::vector<const Records*> per_rank;
  for (const RankCollectives* r : ranks) per_rank.push_back(all_device ? &r->device : &r->host);
  const bool by_sequence = AllSequenced(ranks, per_rank);
  out.matched_by = by_sequence ? "sequence" : "step order";
  std::vector<Matched> matched = by_sequence ? MatchBySequence(ranks, per_rank, &out.unmatched_steps)
                                             : Match(ranks, per_rank, &out.unmatched_steps);
  out.matched = int(matched.size());
  if (out.matched < kMinMatchedCollectives) {
    out.why_not = fmt::format(
        "{} collectives could be matched across the ranks ({}), under the {} an alignment needs{}", out.matched,
        by_sequence ? "same process group and sequence number" : "same step, same order", kMinMatchedCollectives,
        out.unmatched_steps == 0 ? ""
        : by_sequence ? fmt::format("; {} steps hold collectives some rank lacks", out.unmatched_steps)
                      : fmt::format("; {} steps hold different collectives on different ranks", out.unmatched_steps));
    return out;
  }

  // Each rank's clock offset from the first's: the median difference of their completions.
  const size_t n = ranks.size();
  std::vector<int64_t> skew(n, 0);
  double max_spread_ns = 0;
  for (size_t r = 1; r < n; ++r) {
    std::vector<double> d;
    for (const auto& m : matched) d.push_back(double(m.end[r] - m.end[0]));
    const double med = Median(d);
    for (double& x : d) x = std::abs(x - med);
    const double spread = Median(d);
    skew[r] = int64_t(std::llround(med));
    out.ranks[r].clock_skew_ms = med / 1e6;
    out.ranks[r].skew_spread_ms = spread / 1e6;
    max_spread_ns = std::max(max_spread_ns, spread);
  }

  // The completions must agree on one offset: their spread within half a typical transfer.
  std::vector<double> shortest;
  for (const auto& m : matched) {
    int64_t d = INT64_MAX;
    for (size_t r = 0; r < n; ++r) d = std::min(d, m.end[r] - m.start[r]);
    shortest.push_back(double(d));
  }
  const double transfer = Median(shortest);
  if (max_spread_ns > std::max(double(kAlignToleranceNs), kMaxSpreadOfTransfer * transfer)) {
    out.why_not = fmt::format(
        "the ranks' clocks cannot be aligned on their collectives: their completions scatter by {:.2f} ms around the "
        "best offset, against {:.2f} ms for a typical transfer (clocks drifting, or the ranks recorded different "
        "collectives)",
        max_spread_ns / 1e6, transfer / 1e6);
    return out;
  }

  // Consistency: on the aligned clock nobody finishes a collective before the last rank arrived.
  const double tolerance = std::max(double(kAlignToleranceNs), 3 * max_spread_ns);
  for (const auto& m : matched) {
    int64_t last_arrival = INT64_MIN, first_end = INT64_MAX;
    for (size_t r = 0; r < n; ++r) {
      last_arrival = std::max(last_arrival, m.start[r] - skew[r]);
      first_end = std::min(first_end, m.end[r] - skew[r]);
    }
    if (double(first_end) < double(last_arrival) - tolerance) ++out.inconsistent;
  }
  if (100.0 * out.inconsistent / out.matched > kMaxInconsistentPct) {
    out.why_not = fmt::format(
        "the ranks' clocks cannot be aligned on their collectives: after the best offsets, in {} of {} a rank "
        "finishes before another has started (clocks drifting, or the ranks recorded different collectives)",
        out.inconsistent, out.matched);
    return out;
  }
  out.aligned = true;

  // Per step, synchronisations: collectives overlapping on the aligned clock form one.
  std::vector<double> late_ns(n, 0), wait_ns(n, 0);
  std::map<std::string, CollectiveKindStats> kinds;
  std::map<std::tuple<CollectiveKind, int, int>, CollectiveTransfer> transfers;
  std::map<int64_t, std::vector<size_t>> steps;
  for (size_t i = 0; i < matched.size(); ++i) steps[matched[i].step].push_back(i);
  out.steps = int(steps.size());
  for (auto& [step, idx] : steps) {
    std::vector<int64_t> first_arrival(idx.size()), done(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) {
      const Matched& m = matched[idx[k]];
      first_arrival[k] = INT64_MAX;
      std::vector<double> ends;
      for (size_t r = 0; r < n; ++r) {
        first_arrival[k] = std::min(first_arrival[k], m.start[r] - skew[r]);
        ends.push_back(double(m.end[r] - skew[r]));
      }
      done[k] = int64_t(Median(ends));
    }
    std::vector<size_t> order(idx.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return first_arrival[a] < first_arrival[b]; });

    // Walks one synchronisation at a time: the largest lateness in it goes to its last rank, and
    // each rank's largest wait in it to that rank.
    double sync_late = -1;
    size_t sync_last = 0;
    std::vector<double> sync_wait(n, 0);
    int64_t sync_end = INT64_MIN;
    auto close_sync = [&] {
      if (sync_late > 0) late_ns[sync_last] += sync_late;
      for (size_t r = 0; r < n; ++r) wait_ns[r] += sync_wait[r];
      sync_late = -1;
      std::fill(sync_wait.begin(), sync_wait.end(), 0);
    };
    for (size_t k : order) {
      const Matched& m = matched[idx[k]];
      if (first_arrival[k] >= sync_end) {
        close_sync();
        sync_end = INT64_MIN;
      }
      size_t last = 0;
      int64_t last_at = INT64_MIN, second_at = INT64_MIN;
      for (size_t r = 0; r < n; ++r) {
        const int64_t a = m.start[r] - skew[r];
        if (a > last_at) {
          second_at = last_at;
          last_at = a;
          last = r;
        } else if (a > second_at) {
          second_at = a;
        }
      }
      ++out.ranks[last].last_in;
      const double late = double(last_at - second_at);
      if (late > sync_late) {
        sync_late = late;
        sync_last = last;
      }
      double wait_sum = 0;
      for (size_t r = 0; r < n; ++r) {
        const double w = double(last_at - (m.start[r] - skew[r]));
        sync_wait[r] = std::max(sync_wait[r], w);
        if (r != last) wait_sum += w;
      }
      sync_end = std::max(sync_end, done[k]);
      auto& kind = kinds[KindName(m.name)];
      const double transfer_ms = std::max<double>(0, double(done[k] - last_at)) / 1e6;
      ++kind.calls;
      kind.mean_wait_ms += wait_sum / double(n - 1) / 1e6;
      kind.mean_transfer_ms += transfer_ms;
      if (m.first && m.first->bytes > 0) {
        CollectiveTransfer& x = transfers[{m.first->kind, m.first->group_size, CollectiveSizeBucket(m.first->bytes)}];
        ++x.calls;
        x.bytes += m.first->bytes;
        x.transfer_ms += transfer_ms;
      }
    }
    close_sync();
  }
  for (size_t r = 0; r < n; ++r) {
    out.ranks[r].last_in_pct = 100.0 * out.ranks[r].last_in / out.matched;
    out.ranks[r].late_ms_per_step = late_ns[r] / out.steps / 1e6;
    out.ranks[r].wait_ms_per_step = wait_ns[r] / out.steps / 1e6;
  }
  for (auto& [name, k] : kinds) {
    k.name = name;
    k.mean_wait_ms /= k.calls;
    k.mean_transfer_ms /= k.calls;
    out.kinds.push_back(k);
  }
  std::sort(out.kinds.begin(), out.kinds.end(), [](const auto& a, const auto& b) {
    return a.mean_wait_ms * a.calls > b.mean_wait_ms * b.calls;
  });
  for (auto& [key, x] : transfers) {
    std::tie(x.kind, x.group_size, x.bucket) = key;
    out.transfers.push_back(x);
  }
  return out;
}

CrossRank TraceToCrossRank(const Trace& trace, const std::vector<RankInput>& ranks) {
  std::vector<RankCollectives> records;
  records.reserve(ranks.size());
  for (const RankInput& r : ranks) records.push_back(TraceToRankCollectives(trace, r));
  std::vector<const RankCollectives*> view;
  for (const auto& r : records) view.push_back(&r);
  return RankCollectivesToCrossRank(view);
}

}  // namespace stepdoctor
