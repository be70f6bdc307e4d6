#include "stepdoctor/analysis/trace_to_batch_size.h"

#include <fmt/format.h>

#include <map>

namespace stepdoctor {

int64_t LeadingDimension(std::string_view dims) {
  // The first '[' that opens a tensor's shape (the second level) and holds a digit.
  size_t depth = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const char c = dims[i];
    if (c == '[') {
      ++depth;
      continue;
    }
    if (c == ']') {
      if (depth > 0) --depth;
      continue;
    }
    if (depth == 2 && c >= '0' && c <= '9') {
      int64_t v = 0;
      for (; i < dims.size() && dims[i] >= '0' && dims[i] <= '9' && v < (int64_t(1) << 40); ++i) v = v * 10 + (dims[i] - '0');
      return v;
    }
  }
  return 0;
}

std::string BatchSize::Describe() const {
  return fmt::format("{} samples a step: the leading dimension of {}'s input after {} of {} DataLoader fetches", samples, op,
                     agreeing, fetches);
}

std::optional<BatchSize> TraceToBatchSize(const Trace& trace, WorkerId worker) {
  bool found = false;
  const StringId dims_key = trace.strings.Find("Input Dims", &found);
  if (!found) return std::nullopt;  // no operator kept its shapes
  std::map<int64_t, int> votes;
  std::map<int64_t, std::string> op_of;
  int fetches = 0;
  for (const Timeline& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    const EventColumns& ev = t.ev;
    for (uint32_t i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kInputWait) continue;
      const int64_t done = t.end_ns(i);
      // The first copy with shapes after the fetch ends, before the next fetch starts.
      for (uint32_t j = i + 1; j < ev.size(); ++j) {
        if (ev.kind[j] == EventKind::kInputWait && ev.start_ns[j] >= done) break;
        if (ev.start_ns[j] < done || ev.kind[j] != EventKind::kFrameworkOp) continue;
        const std::string_view name = trace.str(ev.name[j]);
        if (!IsBatchCopyOpName(name)) continue;
        const Arg* a = t.FindArg(j, dims_key);
        if (!a || a->type != ArgType::kString) continue;
        const int64_t lead = LeadingDimension(trace.str(a->s));
        if (lead <= 0) continue;
        ++fetches;
        ++votes[lead];
        op_of.emplace(lead, std::string(name));
        break;
      }
    }
  }
  if (votes.empty()) return std::nullopt;
  BatchSize b;
  for (const auto& [samples, n] : votes)
    if (n > b.agreeing) b.samples = samples, b.agreeing = n;
  b.fetches = fetches;
  b.op = op_of[b.samples];
  return b;
}

}  // namespace stepdoctor
