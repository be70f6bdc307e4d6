#include "stepdoctor/analysis/rule.h"

#include <algorithm>

#include <fmt/format.h>

namespace stepdoctor {

double GainIfRemoved(double share_pct) {
  double rest = 1.0 - std::clamp(share_pct, 0.0, 99.0) / 100.0;
  return 1.0 / rest;
}

namespace {

// A host-side fix (input, launches, framework code) shortens the step to no less than the device
// work each step launched: where that floor is under the share's 1 / (1 - share), the ceiling is
// step / floor, and the gain text says which bounds it.
void CapByDeviceFloor(const StepSignals& s, Finding* f) {
  if (s.cpu_only || s.device_missing || s.device_launched_ms <= 0 || s.mean_step_ms <= 0) return;
  const double cap = std::max(1.0, s.mean_step_ms / s.device_launched_ms);
  if (f->gain_upper_bound <= cap * (1 + 1e-9)) return;
  f->gain_upper_bound = cap;
  const size_t x = f->gain_text.find('x');
  if (f->gain_text.rfind("up to ", 0) == 0 && x != std::string::npos)
    f->gain_text = fmt::format("up to {:.2f}x", cap) + f->gain_text.substr(x + 1);
  f->gain_text += fmt::format(" (and no more: the device work each step launches, {:.1f} ms, stays{})",
                              s.device_launched_ms,
                              s.device_launched_ms > s.device_busy_pct / 100.0 * s.mean_step_ms * 1.05
                                  ? "; part of it runs past the step that launched it"
                                  : "");
}

}  // namespace

const RuleDef* FindRule(std::string_view id) {
  for (const RuleDef& r : AllRules())
    if (id == r.id) return &r;
  return nullptr;
}

std::vector<Finding> RunRules(const Signals& s, std::vector<std::string>* diagnostics) {
  return RunRules(AllRules(), s, diagnostics);
}

std::vector<Finding> RunRules(const std::vector<RuleDef>& rules, const Signals& s, std::vector<std::string>* diagnostics) {
  std::vector<Finding> out;
  const bool device_missing = s.steps && s.steps->device_missing;
  for (const RuleDef& r : rules) {
    if ((r.needs & kNeedsDeviceActivity) && device_missing) continue;
    RuleResult result = r.evaluate(s);
    if (!result.ok()) {
      if (diagnostics) diagnostics->push_back(std::string("rule ") + r.id + " could not evaluate: " + result.message());
      continue;
    }
    std::optional<Finding>& f = result.value();
    if (!f) continue;
    if (f->id != r.id) {
      // A rule must report under its registered id; anything else is a bug worth seeing.
      if (diagnostics) diagnostics->push_back(std::string("rule ") + r.id + " produced finding id " + f->id);
      f->id = r.id;
    }
    const Bottleneck b = f->bottleneck.value_or(r.bottleneck);
    if (s.steps && (b == Bottleneck::kInput || b == Bottleneck::kHost)) CapByDeviceFloor(*s.steps, &*f);
    out.push_back(std::move(*f));
  }
  // What the input lacks leads: the rest is judged without it, on the host side only.
  auto gap = [](const Finding& f) {
    const RuleDef* r = FindRule(f.id);
    return r && r->input_gap && f.severity >= FindingSeverity::kModerate;
  };
  const bool any_gap = std::any_of(out.begin(), out.end(), gap);
  if (any_gap)
    for (Finding& f : out)
      if (!gap(f) && f.severity > FindingSeverity::kModerate) f.severity = FindingSeverity::kModerate;
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    if (gap(a) != gap(b)) return gap(a);
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.share_pct > b.share_pct;
  });
  return out;
}

}  // namespace stepdoctor
