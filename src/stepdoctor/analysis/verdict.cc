#include "stepdoctor/analysis/verdict.h"

#include <fmt/format.h>

#include <string_view>

#include "stepdoctor/analysis/rule.h"

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

}  // namespace

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
  for (const Finding& f : ranked)
    if (f.severity == FindingSeverity::kHigh && BottleneckOf(f) != Bottleneck::kUnknown)
      return From(f, BottleneckOf(f));
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
      return From(f, BottleneckOf(f));
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
  if (steps && steps->step_count > 0)
    v.summary = steps->has_steps ? fmt::format("no clear bottleneck: no rule fired over {} step(s) of median {:.1f} ms",
                                               steps->step_count, steps->median_step_ms)
                                 : fmt::format("no clear bottleneck: no rule fired over the {:.1f} ms window (no steps)",
                                               steps->median_step_ms);
  else
    v.summary = "no clear bottleneck: the inputs hold no steps or activity to analyse";
  return v;
}

Verdict HostOnlyVerdict(const std::vector<Finding>& ranked, bool nothing_launched) {
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
  out.summary = nothing_launched
                    ? "no device work in the window: the job used an accelerator, but no call inside the window "
                      "launched work (set-up, or a wait on work issued before it); profile training steps"
                    : "device activity not captured: the job used an accelerator but the trace holds no device work; "
                      "only the host side is diagnosed";
  out.summary += cold;
  return out;
}

}  // namespace stepdoctor
