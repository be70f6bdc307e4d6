#include "stepdoctor/analysis/horovod_negotiation.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "stepdoctor/analysis/interval_set.h"

namespace stepdoctor {
namespace {

// A rank marker's name: its rank, decimal; -1 for any other name.
int RankOf(std::string_view n) {
  if (n.empty() || n.size() > 6) return -1;
  int r = 0;
  for (char c : n) {
    if (c < '0' || c > '9') return -1;
    r = r * 10 + (c - '0');
  }
  return r;
}

// Bytes of one element of a Horovod dtype ("float32", "float16", "int64", "bool", ...); 0 unknown.
double DtypeBytes(std::string_view d) {
  if (d == "bool" || d == "uint8" || d == "int8") return 1;
  for (std::string_view b : {"16", "32", "64"})
    if (d.size() > b.size() && d.substr(d.size() - b.size()) == b) return b == "16" ? 2 : b == "32" ? 4 : 8;
  return 0;
}

// Elements of a shape written "[154587, 172]" (a scalar "[]" holds one); 0 where it does not read.
double Elements(std::string_view shape) {
  if (shape.size() < 2 || shape.front() != '[' || shape.back() != ']') return 0;
  double n = 1, dim = 0;
  bool digits = false;
  for (char c : shape.substr(1)) {
    if (c >= '0' && c <= '9') {
      dim = dim * 10 + (c - '0');
      digits = true;
    } else if (c == ',' || c == ']') {
      if (digits) n *= dim;
      else if (c == ',') return 0;
      dim = 0;
      digits = false;
    } else if (c != ' ') {
      return 0;
    }
  }
  return n;
}

}  // namespace

HorovodAllreduceSizes TraceToHorovodAllreduceSizes(const Trace& trace, WorkerId worker, int64_t from_ns, int64_t to_ns) {
  HorovodAllreduceSizes out;
  bool has_dtype = false, has_shape = false, has_op = false;
  const StringId dtype_key = trace.strings.Find("dtype", &has_dtype), shape_key = trace.strings.Find("shape", &has_shape),
                 allreduce = trace.strings.Find("ALLREDUCE", &has_op);
  if (!has_dtype || !has_shape || !has_op) return out;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.name[i] != allreduce || !t.ev.args_n[i] || t.ev.start_ns[i] < from_ns || t.ev.start_ns[i] >= to_ns) continue;
      const Arg* d = t.FindArg(i, dtype_key);
      const Arg* sh = t.FindArg(i, shape_key);
      if (!d || !sh || d->type != ArgType::kString || sh->type != ArgType::kString) continue;
      const double bytes = DtypeBytes(trace.str(d->s)) * Elements(trace.str(sh->s));
      if (bytes <= 0) continue;
      const double ms = t.ev.dur_ns[i] / 1e6;
      ++out.sized;
      out.sized_ms += ms;
      out.bytes += bytes;
      if (bytes > out.largest_bytes) out.largest_bytes = bytes, out.largest_ms = ms;
      if (bytes >= kHorovodFusionDefaultBytes) out.large_ms += ms;
    }
  }
  return out;
}

HorovodLateRanks TraceToHorovodLateRanks(const Trace& trace, WorkerId worker, int64_t from_ns, int64_t to_ns) {
  HorovodLateRanks out;
  std::map<int, HorovodLateRanks::Rank> late;
  std::map<int, std::vector<Interval>> late_ivs;  // per late rank: from the next-latest marker to its own
  std::vector<Interval> waits;                    // per negotiation: from the first marker to the last
  std::vector<std::pair<int64_t, int>> marks;  // (time, rank) inside one negotiation
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kCollectiveWait) continue;
      const std::string_view phase = trace.str(t.ev.name[i]);
      if (phase.substr(0, 10) != "NEGOTIATE_") continue;
      const int64_t lo = t.ev.start_ns[i], hi = t.end_ns(uint32_t(i));
      if (lo < from_ns || lo >= to_ns) continue;
      marks.clear();
      // Events are sorted by start: the markers follow their phase on its lane, and the first
      // event that is no marker (the next phase) ends them. A phase left open runs to the end of
      // the trace, so its end alone would let one negotiation scan, and sort, the rest of the lane.
      for (size_t j = i + 1; j < t.ev.size() && t.ev.start_ns[j] <= hi; ++j) {
        const int r = RankOf(trace.str(t.ev.name[j]));
        if (r < 0) break;
        if (t.ev.dur_ns[j] == 0 && t.ev.start_ns[j] >= lo) marks.push_back({t.ev.start_ns[j], r});
      }
      if (marks.size() < 2) continue;
      std::sort(marks.begin(), marks.end());
      ++out.negotiations;
      out.broadcasts += phase == "NEGOTIATE_BROADCAST";
      for (const auto& m : marks) out.ranks = std::max(out.ranks, m.second + 1);
      waits.push_back({marks.front().first, marks.back().first});
      const auto& last = marks.back();
      const auto& next = marks[marks.size() - 2];
      if (last.first == next.first) continue;  // a tie: no one rank held the others
      HorovodLateRanks::Rank& r = late[last.second];
      r.rank = last.second;
      ++r.last_in;
      late_ivs[last.second].push_back({next.first, last.first});
    }
  }
  // Tensors negotiate side by side: a rank late for several at once holds the others once.
  for (auto& [rank, r] : late) {
    r.late_ms = double(TotalLength(MakeIntervalSet(std::move(late_ivs[rank])))) / 1e6;
    out.by_rank.push_back(r);
  }
  out.wait_ms = double(TotalLength(MakeIntervalSet(std::move(waits)))) / 1e6;
  std::sort(out.by_rank.begin(), out.by_rank.end(),
            [](const auto& a, const auto& b) { return a.late_ms != b.late_ms ? a.late_ms > b.late_ms : a.rank < b.rank; });
  return out;
}

int64_t HorovodStartupBroadcastsOnly(const Trace& trace, WorkerId worker) {
  // Each name's role, worked out once: 1 a broadcast's phase, 2 another collective's.
  std::vector<uint8_t> role(trace.strings.size(), 0xff);
  int64_t broadcasts = 0;
  for (const Timeline& t : trace.timelines) {
    if (t.worker != worker) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      uint8_t& r = role[t.ev.name[i].v];
      if (r == 0xff) {
        const std::string_view n = trace.str(t.ev.name[i]);
        const bool collective = n.find("ALLREDUCE") != std::string_view::npos ||
                                n.find("ALLGATHER") != std::string_view::npos ||
                                n.find("ALLTOALL") != std::string_view::npos ||
                                n.find("REDUCESCATTER") != std::string_view::npos ||
                                n.find("REDUCE_SCATTER") != std::string_view::npos;
        r = collective ? 2 : n == "NEGOTIATE_BROADCAST" ? 1 : 0;
      }
      if (r == 2) return 0;
      broadcasts += r == 1;
    }
  }
  return broadcasts;
}

}  // namespace stepdoctor
