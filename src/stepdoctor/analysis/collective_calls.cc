#include "stepdoctor/analysis/collective_calls.h"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <unordered_map>

namespace stepdoctor {
namespace {

std::string Lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c != '_' && c != ' ') out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Bytes per element of the dtype names PyTorch writes (c10's ScalarType names: "Float", "Half",
// "BFloat16", "Long", ...); 0 for a name not listed.
double DtypeBytes(std::string_view d) {
  const std::string s = Lower(d);
  if (s == "complexdouble") return 16;
  if (s == "double" || s == "long" || s == "int64" || s == "complexfloat" || s == "uint64") return 8;
  if (s == "float" || s == "int" || s == "int32" || s == "float32" || s == "complexhalf" || s == "uint32" ||
      s == "qint32")
    return 4;
  if (s == "half" || s == "bfloat16" || s == "short" || s == "float16" || s == "int16" || s == "uint16") return 2;
  if (s == "byte" || s == "char" || s == "bool" || s == "uint8" || s == "int8" || s == "qint8" || s == "quint8" ||
      s.rfind("float8", 0) == 0)
    return 1;
  return 0;
}

// What one event's args say of a collective; unset fields stay at their "not recorded" values.
struct CallArgs {
  CollectiveKind kind = CollectiveKind::kUnknown;
  double in_nelems = -1, out_nelems = -1, elem_bytes = 0;
  int group_size = 0;
  std::string group;  // empty: not recorded
  int64_t seq = -1;
  bool any = false;
};

struct Keys {
  StringId in, out, dtype, name, group_size, group, seq;
  bool any = false;
};

Keys FindKeys(const Trace& trace) {
  Keys k;
  bool f = false;
  auto find = [&](const char* key) {
    StringId id = trace.strings.Find(key, &f);
    k.any |= f;
    return f ? id : StringId{};
  };
  k.in = find("In msg nelems");
  k.out = find("Out msg nelems");
  k.dtype = find("dtype");
  k.name = find("Collective name");
  k.group_size = find("Group size");
  k.group = find("Process Group Name");
  k.seq = find("Seq");
  return k;
}

bool Valid(StringId id) { return id.v != StringId{}.v; }

CallArgs ReadArgs(const Trace& trace, const Timeline& t, uint32_t i, const Keys& k) {
  CallArgs a;
  if (t.ev.args_at[i] == EventColumns::kNoArgs) return a;
  auto arg = [&](StringId key) -> const Arg* { return Valid(key) ? t.FindArg(i, key) : nullptr; };
  auto number = [](const Arg* x, double* out) {
    if (!x) return false;
    if (x->type == ArgType::kInt) *out = double(x->i);
    else if (x->type == ArgType::kDouble) *out = x->d;
    else return false;
    return true;
  };
  if (const Arg* x = arg(k.name); x && x->type == ArgType::kString) {
    a.kind = ClassifyCollective(trace.str(x->s));
    a.any = true;
  }
  a.any |= number(arg(k.in), &a.in_nelems);
  a.any |= number(arg(k.out), &a.out_nelems);
  if (const Arg* x = arg(k.dtype); x && x->type == ArgType::kString) a.elem_bytes = DtypeBytes(trace.str(x->s));
  double n = 0;
  if (number(arg(k.group_size), &n) && n >= 1 && n < 1e9) a.group_size = int(n);
  if (const Arg* x = arg(k.group)) {
    if (x->type == ArgType::kString) a.group = std::string(trace.str(x->s));
    else if (x->type == ArgType::kInt) a.group = std::to_string(x->i);  // a number: matched by its text
  }
  if (const Arg* x = arg(k.seq)) {
    if (x->type == ArgType::kInt && x->i >= 0) a.seq = x->i;
    else if (x->type == ArgType::kString) {
      const std::string_view s = trace.str(x->s);
      int64_t v = 0;
      bool digits = !s.empty() && s.size() < 19;
      for (char c : s) digits = digits && c >= '0' && c <= '9';
      if (digits) {
        for (char c : s) v = v * 10 + (c - '0');
        a.seq = v;
      }
    }
  }
  return a;
}

}  // namespace

const char* CollectiveKindName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kPointToPoint: return "point_to_point";
    case CollectiveKind::kBarrier: return "barrier";
    case CollectiveKind::kOther: return "other";
    case CollectiveKind::kUnknown: break;
  }
  return "unknown";
}

std::optional<CollectiveKind> CollectiveKindFromName(std::string_view name) {
  for (int i = 0; i <= int(CollectiveKind::kOther); ++i)
    if (name == CollectiveKindName(CollectiveKind(i))) return CollectiveKind(i);
  return std::nullopt;
}

CollectiveKind ClassifyCollective(std::string_view name) {
  const std::string s = Lower(name);
  auto has = [&](const char* p) { return s.find(p) != std::string::npos; };
  if (s.empty()) return CollectiveKind::kUnknown;
  if (has("alltoall")) return CollectiveKind::kAllToAll;
  if (has("reducescatter")) return CollectiveKind::kReduceScatter;
  if (has("allgather")) return CollectiveKind::kAllGather;
  if (has("allreduce")) return CollectiveKind::kAllReduce;
  if (has("broadcast")) return CollectiveKind::kBroadcast;
  if (has("sendrecv") || has("send") || has("recv")) return CollectiveKind::kPointToPoint;
  if (has("barrier")) return CollectiveKind::kBarrier;
  if (has("reduce")) return CollectiveKind::kReduce;
  return CollectiveKind::kOther;
}

std::optional<double> BusBandwidthFactor(CollectiveKind k, int n) {
  if (n < 1) return std::nullopt;
  switch (k) {
    case CollectiveKind::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return double(n - 1) / n;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: return 1.0;
    default: return std::nullopt;
  }
}

int CollectiveSizeBucket(double bytes) {
  int b = 0;
  double edge = 1024;
  while (b < kCollectiveSizeBuckets - 1 && bytes >= edge) {
    ++b;
    edge *= 4;
  }
  return b;
}

int64_t CollectiveBucketMinBytes(int bucket) {
  if (bucket <= 0) return 0;
  int64_t v = 1024;
  for (int i = 1; i < bucket; ++i) v *= 4;
  return v;
}

std::optional<int64_t> CollectiveBucketBelowBytes(int bucket) {
  if (bucket >= kCollectiveSizeBuckets - 1) return std::nullopt;
  return CollectiveBucketMinBytes(bucket + 1);
}

std::string CollectiveBucketLabel(int bucket) {
  auto size = [](int64_t v) {
    if (v >= (int64_t(1) << 30)) return fmt::format("{} GiB", v >> 30);
    if (v >= (int64_t(1) << 20)) return fmt::format("{} MiB", v >> 20);
    return fmt::format("{} KiB", v >> 10);
  };
  if (bucket <= 0) return "<1 KiB";
  const auto below = CollectiveBucketBelowBytes(bucket);
  if (!below) return ">=" + size(CollectiveBucketMinBytes(bucket));
  std::string lo = size(CollectiveBucketMinBytes(bucket)), hi = size(*below);
  // "4-16 MiB": the unit once where both ends share it.
  if (lo.substr(lo.find(' ')) == hi.substr(hi.find(' '))) lo = lo.substr(0, lo.find(' '));
  return lo + "-" + hi;
}

std::vector<CollectiveCall> TraceToCollectiveCalls(const Trace& trace, WorkerId worker) {
  std::vector<CollectiveCall> out;
  const Keys k = FindKeys(trace);
  // The record_param_comms ranges' args, by the correlation id of each launch inside them (an
  // inner range overrides its parent), and which range it was.
  std::unordered_map<int64_t, std::pair<CallArgs, int64_t>> by_corr;
  bool found = false;
  const StringId rpc = trace.strings.Find("record_param_comms", &found);
  int64_t range_id = 0;
  if (k.any && found)
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
      const auto& ev = t.ev;
      for (uint32_t i = 0; i < ev.size(); ++i) {
        if (ev.name[i].v != rpc.v) continue;
        CallArgs a = ReadArgs(trace, t, i, k);
        ++range_id;
        if (!a.any) continue;
        const int64_t end = ev.start_ns[i] + ev.dur_ns[i];
        for (uint32_t j = i + 1; j < ev.size() && ev.start_ns[j] <= end; ++j)
          if (ev.kind[j] == EventKind::kRuntime && ev.corr[j] != 0) by_corr[ev.corr[j]] = {a, range_id};
      }
    }
  std::unordered_map<int64_t, bool> range_seen;
  for (size_t ti = 0; ti < trace.timelines.size(); ++ti) {
    const Timeline& t = trace.timelines[ti];
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kCollective) continue;
      CollectiveCall c;
      c.timeline = uint32_t(ti);
      c.event = i;
      CallArgs own = k.any ? ReadArgs(trace, t, i, k) : CallArgs{};
      CallArgs from;
      if (t.ev.corr[i] != 0)
        if (auto it = by_corr.find(t.ev.corr[i]); it != by_corr.end()) {
          from = it->second.first;
          c.call_id = it->second.second;
        }
      // The kernel's own args first; the range fills what they lack.
      auto pick = [](double mine, double theirs) { return mine >= 0 ? mine : theirs; };
      const double in = pick(own.in_nelems, from.in_nelems), out_n = pick(own.out_nelems, from.out_nelems);
      const double elem = own.elem_bytes > 0 ? own.elem_bytes : from.elem_bytes;
      if (elem > 0 && std::max(in, out_n) > 0) c.bytes = std::max(in, out_n) * elem;
      c.kind = own.kind != CollectiveKind::kUnknown    ? own.kind
               : from.kind != CollectiveKind::kUnknown ? from.kind
                                                       : ClassifyCollective(trace.str(t.ev.name[i]));
      c.group_size = own.group_size > 0 ? own.group_size : from.group_size;
      c.group = !own.group.empty() ? own.group : from.group;
      c.seq = own.seq >= 0 ? own.seq : from.seq;
      if (own.any && (own.in_nelems >= 0 || own.out_nelems >= 0)) c.call_id = -1;  // sized by its own args
      if (c.call_id >= 0) {
        auto [it, fresh] = range_seen.try_emplace(c.call_id, true);
        c.first_of_call = fresh;
      }
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace stepdoctor
