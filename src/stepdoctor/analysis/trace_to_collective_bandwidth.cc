#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"

#include "stepdoctor/core/checked_time.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace stepdoctor {
namespace {

// Bytes per element of the dtype names PyTorch writes ("Float", "Half", "BFloat16", ...).
double DtypeBytes(std::string_view d) {
  std::string s;
  for (char c : d) s += char(std::tolower(static_cast<unsigned char>(c)));
  if (s == "double" || s == "long" || s == "int64" || s == "complexfloat") return 8;
  if (s == "float" || s == "int" || s == "int32" || s == "float32") return 4;
  if (s == "half" || s == "bfloat16" || s == "short" || s == "float16") return 2;
  if (s == "byte" || s == "char" || s == "bool" || s == "uint8" || s == "int8") return 1;
  return 0;
}

double BusFactor(const std::string& name, int n) {
  if (n <= 1) return 1;
  std::string s;
  for (char c : name) s += char(std::tolower(static_cast<unsigned char>(c)));
  if (s.find("allreduce") != std::string::npos || s.find("all_reduce") != std::string::npos) return 2.0 * (n - 1) / n;
  if (s.find("allgather") != std::string::npos || s.find("all_gather") != std::string::npos ||
      s.find("reduce_scatter") != std::string::npos || s.find("reducescatter") != std::string::npos)
    return double(n - 1) / n;
  return 1;
}

}  // namespace

std::vector<CollectiveBandwidth> TraceToCollectiveBandwidth(const Trace& trace, WorkerId worker) {
  bool found = false;
  const StringId k_nelems = trace.strings.Find("In msg nelems", &found);
  if (!found) return {};
  const StringId k_dtype = trace.strings.Find("dtype");
  const StringId k_name = trace.strings.Find("Collective name");
  const StringId k_group = trace.strings.Find("Group size");

  // Device time of each communication kernel, by correlation id.
  std::unordered_map<int64_t, int64_t> kernel_ns;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kCollective && t.ev.corr[i] != 0) {
        int64_t& n = kernel_ns[t.ev.corr[i]];
        n = SaturatingAdd(n, t.ev.dur_ns[i]);  // kernels sharing an id may overlap
      }
  }
  if (kernel_ns.empty()) return {};

  std::map<std::pair<std::string, int>, CollectiveBandwidth> acc;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    const auto& ev = t.ev;
    for (uint32_t i = 0; i < ev.size(); ++i) {
      const Arg* ne = t.FindArg(i, k_nelems);
      if (!ne || ne->type == ArgType::kString) continue;
      const Arg* dt = t.FindArg(i, k_dtype);
      double elem = dt && dt->type == ArgType::kString ? DtypeBytes(trace.str(dt->s)) : 0;
      if (elem <= 0) continue;
      const Arg* nm = t.FindArg(i, k_name);
      const Arg* gs = t.FindArg(i, k_group);
      std::string name = nm && nm->type == ArgType::kString ? std::string(trace.str(nm->s)) : "collective";
      int group = gs && gs->type != ArgType::kString ? int(gs->i) : 0;
      // The launches inside this range: events that start before it ends (sorted by start).
      int64_t end = ev.start_ns[i] + ev.dur_ns[i], dev_ns = 0;
      for (uint32_t j = i + 1; j < ev.size() && ev.start_ns[j] <= end; ++j)
        if (ev.kind[j] == EventKind::kRuntime && ev.corr[j] != 0)
          if (auto it = kernel_ns.find(ev.corr[j]); it != kernel_ns.end()) dev_ns = SaturatingAdd(dev_ns, it->second);
      if (dev_ns <= 0) continue;
      auto& c = acc[{name, group}];
      c.name = name;
      c.group_size = group;
      ++c.calls;
      c.bytes += double(ne->i) * elem;
      c.kernel_ms += dev_ns / 1e6;
    }
  }
  std::vector<CollectiveBandwidth> out;
  for (auto& [key, c] : acc) {
    if (c.kernel_ms <= 0) continue;
    c.algbw_gbps = c.bytes / (c.kernel_ms / 1e3) / 1e9;
    c.busbw_gbps = c.algbw_gbps * BusFactor(c.name, c.group_size);
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.kernel_ms > b.kernel_ms; });
  return out;
}

}  // namespace stepdoctor
