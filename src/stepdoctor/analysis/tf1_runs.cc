#include "stepdoctor/analysis/tf1_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

namespace stepdoctor {

std::vector<int64_t> Tf1RunStarts(const Trace& trace, WorkerId worker) {
  bool has_key = false, has_source = false;
  const StringId key = trace.strings.Find("name", &has_key);
  const StringId source = trace.strings.Find("_SOURCE", &has_source);
  if (!has_key || !has_source) return {};
  struct Span {
    int64_t start, end;
    bool source;
    uint32_t lane;  // each device's partition has an executor of its own, on its lane, and its own _SOURCE
  };
  std::vector<Span> spans;
  for (uint32_t line = 0; line < trace.timelines.size(); ++line) {
    const Timeline& t = trace.timelines[line];
    if (t.worker != worker || t.kind == TimelineKind::kDerived) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      const Arg* a = t.ev.args_n[i] ? t.FindArg(i, key) : nullptr;
      spans.push_back({t.ev.start_ns[i], t.end_ns(i), a && a->type == ArgType::kString && a->s == source, line});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<int64_t> starts;
  int64_t reach = INT64_MIN;  // the latest end of the events that start before the current one
  bool op_since = true;       // an op other than _SOURCE started since the last run's start
  std::vector<uint32_t> started;  // the lanes whose partition started in the current run
  for (size_t i = 0; i < spans.size();) {
    // Events starting at one instant are judged against what started before it.
    size_t j = i;
    while (j < spans.size() && spans[j].start == spans[i].start) ++j;
    const int64_t at = spans[i].start;
    // A _SOURCE opens a run only on a device whose partition already started in the current
    // one: another device's _SOURCE is the same run's next partition, however late it starts.
    bool opens = false, repeats = starts.empty();
    for (size_t k = i; k < j; ++k) {
      if (!spans[k].source) continue;
      opens = true;
      repeats |= std::find(started.begin(), started.end(), spans[k].lane) != started.end();
    }
    if (opens && repeats && reach <= at && op_since) {
      starts.push_back(at);
      op_since = false;
      started.clear();
    }
    for (size_t k = i; k < j; ++k)
      if (spans[k].source && std::find(started.begin(), started.end(), spans[k].lane) == started.end())
        started.push_back(spans[k].lane);
    for (size_t k = i; k < j; ++k) {
      reach = std::max(reach, spans[k].end);
      if (!spans[k].source) op_since = true;
    }
    i = j;
  }
  if (starts.size() < 2) starts.clear();
  return starts;
}

namespace {
// Drops a trailing "_<digits>" (a tensor's output index, an argument's position) once.
std::string_view DropIndex(std::string_view node) {
  if (auto u = node.rfind('_'); u != std::string_view::npos && u + 1 < node.size() &&
                                node.find_first_not_of("0123456789", u + 1) == std::string_view::npos)
    return node.substr(0, u);
  return node;
}

// The fed tensor a node of a TF1 run stands for, or "": `_arg_<feed>_<index>_<n>` (the call-frame
// argument of TF 1.2 and later), `_recv_<feed>_<index>` (the client-terminated receive that older
// releases rewrote each feed into) and `edge_<N>__recv_<feed>_<index>` (the copy of that receive's
// output to a device). Other receives between partitions are named after their edge
// (`<node>/_<N>`), never with the `_recv_` prefix, which the feed rewrite alone writes.
std::string_view FedTensor(std::string_view node) {
  if (node.substr(0, 5) == "_arg_") return DropIndex(DropIndex(node.substr(5)));
  if (node.substr(0, 5) == "edge_") {
    const size_t r = node.find("__recv_", 5);
    if (r == std::string_view::npos || node.find_first_not_of("0123456789", 5) != r) return {};
    node.remove_prefix(r + 1);
  }
  if (node.substr(0, 6) != "_recv_" || node.find('/') != std::string_view::npos) return {};
  return DropIndex(node.substr(6));
}
}  // namespace

std::string Tf1FeedNote(const Trace& trace, WorkerId worker) {
  if (!worker.valid() || worker.v >= trace.workers.size() || !trace.worker(worker).tf1_session) return "";
  bool has_key = false;
  const StringId key = trace.strings.Find("name", &has_key);
  if (!has_key) return "";
  std::set<std::string_view> feeds;
  for (const Timeline& t : trace.timelines) {
    if (t.worker != worker || t.kind == TimelineKind::kDerived) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (!t.ev.args_n[i]) continue;
      const Arg* a = t.FindArg(i, key);
      if (!a || a->type != ArgType::kString) continue;
      if (std::string_view feed = FedTensor(trace.str(a->s)); !feed.empty()) feeds.insert(feed);
    }
  }
  if (feeds.empty()) return "";
  std::string names;
  int shown = 0;
  for (auto f : feeds) {
    if (shown++ == 3) {
      names += ", ...";
      break;
    }
    names += fmt::format("{}{}", shown > 1 ? ", " : "", f);
  }
  return fmt::format("input comes by feed_dict ({} tensor{} fed: {}): building the feed and copying it in run in "
                     "Python before each sess.run, where the trace records nothing, so input time is not in these "
                     "figures; tf.data in the graph would show it (and can prefetch it)",
                     feeds.size(), feeds.size() == 1 ? "" : "s", names);
}

bool Tf1BeforeRelease1(const Trace& trace, WorkerId worker) {
  if (!worker.valid() || worker.v >= trace.workers.size() || !trace.worker(worker).tf1_session) return false;
  bool has = false;
  const StringId v1 = trace.strings.Find("Variable", &has);
  if (!has) return false;
  for (const Timeline& t : trace.timelines)
    if (t.worker == worker && t.kind == TimelineKind::kHostThread)
      for (uint32_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.name[i] == v1) return true;  // an op of type Variable (events are named by type)
  return false;
}

Tf1WeightCopies Tf1CopiedWeights(const Trace& trace, WorkerId worker) {
  Tf1WeightCopies out;
  if (!worker.valid() || worker.v >= trace.workers.size() || !trace.worker(worker).tf1_session) return out;
  bool has_key = false;
  const StringId key = trace.strings.Find("name", &has_key);
  if (!has_key) return out;
  std::map<std::string_view, double> by_var;  // variable -> its copies' time
  for (const Timeline& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kMemcpyH2D || !t.ev.args_n[i]) continue;
      const Arg* a = t.FindArg(i, key);
      if (!a || a->type != ArgType::kString) continue;
      std::string_view node = trace.str(a->s);
      // edge_<N>_<tensor>: the copy of <tensor>'s output to the device.
      if (node.substr(0, 5) != "edge_") continue;
      const size_t u = node.find('_', 5);
      if (u == std::string_view::npos || node.find_first_not_of("0123456789", 5) != u) continue;
      node.remove_prefix(u + 1);
      if (node.size() <= 5 || node.substr(node.size() - 5) != "/read") continue;
      by_var[node.substr(0, node.size() - 5)] += double(t.ev.dur_ns[i]) / 1e6;
      out.copy_ms += double(t.ev.dur_ns[i]) / 1e6;
      ++out.copies;
    }
  }
  if (by_var.empty()) return out;
  std::vector<std::pair<double, std::string_view>> order;
  for (const auto& [var, ms] : by_var) order.push_back({ms, var});
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < order.size() && i < 3; ++i) out.names.emplace_back(order[i].second);
  // The host ops whose node is a copied variable: the weight made on the CPU each run (a
  // variable's own node is no op of the run; a Dequantize or cast named after it is).
  for (const Timeline& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kFrameworkOp || !t.ev.args_n[i]) continue;
      const Arg* a = t.FindArg(i, key);
      if (a && a->type == ArgType::kString && by_var.count(trace.str(a->s)))
        out.made_on_cpu_ms += double(t.ev.dur_ns[i]) / 1e6;
    }
  }
  return out;
}

}  // namespace stepdoctor
