#include "stepdoctor/analysis/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"  // EachStep

namespace stepdoctor {
namespace {

const char* BottleneckPhrase(Bottleneck b) {
  switch (b) {
    case Bottleneck::kInput: return "input-bound";
    case Bottleneck::kHost: return "host-bound";
    case Bottleneck::kDeviceCompute: return "compute-bound";
    case Bottleneck::kCommunication: return "communication-bound";
    case Bottleneck::kUnknown: break;
  }
  return "no clear bottleneck";
}

Verdict From(const Finding& f, Bottleneck b) {
  Verdict v;
  v.bottleneck = b;
  v.summary = fmt::format("{}: {}", BottleneckPhrase(b), f.title);
  return v;
}

// The side a prediction's bound_by names ("device", "host", "input", "loader", "cpu", ...).
std::optional<Bottleneck> BoundSide(const std::string& bound_by) {
  if (bound_by == "host") return Bottleneck::kHost;
  if (bound_by == "input" || bound_by == "loader" || bound_by == "cpu") return Bottleneck::kInput;
  if (bound_by == "device") return Bottleneck::kDeviceCompute;
  if (bound_by == "communication") return Bottleneck::kCommunication;
  return std::nullopt;
}

const char* SideShare(Bottleneck b) {
  switch (b) {
    case Bottleneck::kInput: return "input waits hold";
    case Bottleneck::kHost: return "host time holds";
    case Bottleneck::kDeviceCompute: return "device compute holds";
    case Bottleneck::kCommunication: return "exposed communication holds";
    case Bottleneck::kUnknown: break;
  }
  return "it holds";
}

// The verdict for f, unless it yields to the finding of the side that bounds it: then that one.
// Either way, a finding that yielded is named, with why.
Verdict FromOrItsBound(const Finding& f, const std::vector<Finding>& ranked) {
  const Finding* g = BoundingFinding(f, ranked);
  const Finding& lead = g ? *g : f;
  const Finding* yielded = g ? &f : nullptr;
  for (size_t i = 0; !yielded && i < ranked.size(); ++i)
    if (&ranked[i] != &lead && BoundingFinding(ranked[i], ranked) == &lead) yielded = &ranked[i];
  Verdict v = From(lead, BottleneckOf(lead));
  if (yielded && yielded->share_pct > lead.share_pct)
    v.summary += fmt::format(" ({} {:.1f}% of the step, but the replay without it predicts {:.0f} of the {:.0f} ms: "
                             "the {} still bounds it)",
                             SideShare(BottleneckOf(*yielded)), yielded->share_pct,
                             yielded->prediction->predicted_step_ms, yielded->prediction->baseline_step_ms,
                             yielded->prediction->bound_by);
  return v;
}
}  // namespace

const Finding* BoundingFinding(const Finding& f, const std::vector<Finding>& ranked) {
  const auto& p = f.prediction;
  if (!p || !p->predicted || p->baseline_step_ms <= 0 || p->speedup >= kNoGainSpeedup) return nullptr;
  if (std::abs(p->model_baseline_ms - p->baseline_step_ms) > kReplayFitPct / 100 * p->baseline_step_ms) return nullptr;
  const std::optional<Bottleneck> side = BoundSide(p->bound_by);
  if (!side || *side == BottleneckOf(f)) return nullptr;
  for (const Finding& g : ranked)
    if (&g != &f && g.severity >= FindingSeverity::kModerate && BottleneckOf(g) == *side) return &g;
  return nullptr;
}

void RankBoundingFindingsFirst(std::vector<Finding>* ranked) {
  for (size_t i = 0; i < ranked->size(); ++i) {
    const Finding* g = BoundingFinding((*ranked)[i], *ranked);
    if (!g) continue;
    const size_t j = size_t(g - ranked->data());
    if (j < i) continue;
    // g moves to i's place; i and those between shift down one.
    std::rotate(ranked->begin() + i, ranked->begin() + j, ranked->begin() + j + 1);
    return;  // one move: the lead is settled
  }
}

void LeadWithTheVerdictsFinding(const Verdict& v, std::vector<Finding>* ranked) {
  size_t lead = ranked->size(), at = std::string::npos;
  for (size_t i = 0; i < ranked->size(); ++i) {
    const std::string& title = (*ranked)[i].title;
    if (title.empty()) continue;
    const size_t pos = v.summary.find(title);
    if (pos < at) at = pos, lead = i;
  }
  if (lead < ranked->size() && lead > 0) std::rotate(ranked->begin(), ranked->begin() + lead, ranked->begin() + lead + 1);
}

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kInput: return "input";
    case Bottleneck::kHost: return "host";
    case Bottleneck::kDeviceCompute: return "device_compute";
    case Bottleneck::kCommunication: return "communication";
    case Bottleneck::kUnknown: return "unknown";
  }
  return "unknown";
}

const char* FindingSeverityName(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kNone: return "none";
    case FindingSeverity::kLow: return "low";
    case FindingSeverity::kModerate: return "moderate";
    case FindingSeverity::kHigh: return "high";
  }
  return "none";
}

std::optional<Bottleneck> BottleneckFromName(std::string_view name) {
  for (int b = 0; b <= int(Bottleneck::kUnknown); ++b)
    if (name == BottleneckName(Bottleneck(b))) return Bottleneck(b);
  return std::nullopt;
}

std::optional<FindingSeverity> FindingSeverityFromName(std::string_view name) {
  for (int s = 0; s <= int(FindingSeverity::kHigh); ++s)
    if (name == FindingSeverityName(FindingSeverity(s))) return FindingSeverity(s);
  return std::nullopt;
}

Bottleneck BottleneckOfFinding(const std::string& id) {
  const RuleDef* r = FindRule(id);
  return r ? r->bottleneck : Bottleneck::kUnknown;
}

Bottleneck BottleneckOf(const Finding& f) { return f.bottleneck ? *f.bottleneck : BottleneckOfFinding(f.id); }

Verdict MakeVerdict(const std::vector<Finding>& ranked, const StepSignals* steps) {
  // The only window is one cold first pass: that leads, and what else bounds it follows.
  for (const Finding& cold : ranked)
    if (cold.id == "cold_start" && cold.severity >= FindingSeverity::kModerate) {
      Verdict v;
      v.summary = "no single bottleneck identified: " + cold.title;
      for (const Finding& f : ranked)
        if (f.severity >= FindingSeverity::kModerate && BottleneckOf(f) != Bottleneck::kUnknown) {
          v.summary += fmt::format("; in the rest, {}: {}", BottleneckPhrase(BottleneckOf(f)), f.title);
          break;
        }
      return v;
    }
  // The host waiting on device work the trace does not hold, for more of the step than a named
  // bottleneck takes: the record is too partial to name that one; what it lacks leads.
  const Finding* unrecorded = nullptr;
  for (const Finding& f : ranked)
    if (f.id == "unrecorded_device_work" && f.severity >= FindingSeverity::kModerate) unrecorded = &f;
  auto outweighed = [&](const Finding& f) { return unrecorded && unrecorded->share_pct > f.share_pct; };
  auto lacking = [&] {
    Verdict v;
    v.bottleneck = Bottleneck::kUnknown;
    v.summary = "no single bottleneck identified: " + unrecorded->title;
    return v;
  };
  for (const Finding& f : ranked) {
    if (f.severity != FindingSeverity::kHigh) continue;
    if (BottleneckOf(f) != Bottleneck::kUnknown) return outweighed(f) ? lacking() : FromOrItsBound(f, ranked);
    // Copies between host and device holding most of the step bound it, though they are none
    // of the named bottlenecks (the host's, the device's compute, input, communication): they
    // lead over a lesser host or input share.
    if (f.id == "copy_bound") {
      Verdict v;
      v.bottleneck = Bottleneck::kUnknown;
      v.summary = "copy-bound: " + f.title;
      return v;
    }
  }
  // A healthy note that the device is busy: a profile's steps show it computing (compute_bound);
  // a GPU log alone shows only that a kernel was resident (gpu_well_fed), which names no
  // bottleneck, so its note is the headline as it stands.
  const Finding* compute = nullptr;
  const Finding* busy = nullptr;
  for (const Finding& f : ranked) {
    if (f.id == "compute_bound") compute = &f;
    if (f.id == "gpu_well_fed") busy = &f;
  }
  Verdict v;
  v.bottleneck = Bottleneck::kUnknown;
  if (compute && compute->share_pct >= kComputeVerdictPct) return From(*compute, Bottleneck::kDeviceCompute);
  if (busy && busy->share_pct >= kComputeVerdictPct) {
    v.summary = busy->title;
    return v;
  }
  for (const Finding& f : ranked)
    if (f.severity == FindingSeverity::kModerate && BottleneckOf(f) != Bottleneck::kUnknown)
      return outweighed(f) ? lacking() : FromOrItsBound(f, ranked);
  if (compute) return From(*compute, Bottleneck::kDeviceCompute);
  if (busy) {
    v.summary = busy->title;
    return v;
  }
  // A finding that names no bottleneck (a GPU log that only shows the GPU waiting) still
  // says the most useful thing we know.
  for (const Finding& f : ranked)
    if (f.severity >= FindingSeverity::kModerate) {
      v.summary = "no single bottleneck identified: " + f.title;
      return v;
    }
  // A GPU log too short to be sure of it still says what it saw: no GPU ran work while it ran.
  for (const Finding& f : ranked)
    if (f.id == "gpus_unused") {
      v.summary = "no single bottleneck identified: " + f.title;
      return v;
    }
  if (steps && steps->step_count > 0)
    v.summary = steps->has_steps ? fmt::format("no clear bottleneck: no rule fired over {} step(s) of median {:.1f} ms",
                                               steps->step_count, steps->median_step_ms)
                                 : fmt::format("no clear bottleneck: no rule fired over the {:.1f} ms window (no steps)",
                                               steps->median_step_ms);
  else
    v.summary = "no clear bottleneck: the inputs hold no steps or activity to analyse";
  return v;
}

Verdict HostOnlyVerdict(const std::vector<Finding>& ranked, bool nothing_launched, bool no_operators,
                        const StepSignals* steps) {
  Verdict out;
  for (const Finding& f : ranked)
    if (f.severity >= FindingSeverity::kModerate && BottleneckOf(f) == Bottleneck::kInput) {
      out.bottleneck = Bottleneck::kInput;
      out.summary = fmt::format("input-bound (host-side view; device activity not captured): {}", f.title);
      return out;
    }
  // The host's own CPU work bounds the step from below, whatever the device did.
  for (const Finding& f : ranked)
    if (f.severity >= FindingSeverity::kModerate && f.id == "host_bound") {
      out.bottleneck = Bottleneck::kHost;
      out.summary = fmt::format("host-bound (host-side view): {}", f.title);
      return out;
    }
  out.bottleneck = Bottleneck::kUnknown;
  // The host side still says when the window is one cold first pass.
  std::string cold;
  for (const Finding& f : ranked)
    if (f.id == "cold_start" && f.severity >= FindingSeverity::kModerate)
      cold = fmt::format("; and {:.0f}% of the window is one-off start-up (a cold first pass): profile after warm-up",
                         f.share_pct);
  out.summary = nothing_launched && no_operators
                    ? "nothing of the job's work recorded: the profiler ran far longer than its events, which hold no "
                      "operator and no device work, only its own start and stop calls; profile inside the process "
                      "that trains"
                : nothing_launched
                    ? "no device work in the window: the job used an accelerator, but no call inside the window "
                      "launched work (set-up, or a wait on work issued before it); profile the job's steps"
                    : "device activity not captured: the job used an accelerator but the trace holds no device work; "
                      "only the host side is diagnosed";
  // What the host side does show: it blocked on the device most of the step, so the device's
  // work, unrecorded, set the pace.
  if (!nothing_launched && steps && steps->mean_step_ms > 0 &&
      100.0 * steps->sync_wait_ms >= kHostOnlyDeviceWaitPct * steps->mean_step_ms)
    out.summary += fmt::format("; the host waits on the device {:.1f}% of {} (synchronize calls, blocking copies): the "
                               "device's unrecorded work sets the pace",
                               100.0 * steps->sync_wait_ms / steps->mean_step_ms, rules::EachStep(*steps));
  out.summary += cold;
  return out;
}

}  // namespace stepdoctor
