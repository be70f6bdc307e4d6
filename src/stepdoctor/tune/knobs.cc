#include "stepdoctor/tune/knobs.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace stepdoctor::tune {
namespace {

bool IsEnvName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(s.substr(start, comma - start));
  out.push_back(s.substr(start));
  return out;
}

bool ParseInt(std::string_view s, int* v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && *v >= 0;
}

}  // namespace

Result<std::vector<int>> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  for (const std::string& part : SplitCommas(text)) {
    size_t dash = part.find('-');
    int lo = 0, hi = 0;
    bool ok = dash == std::string::npos ? ParseInt(part, &lo) && ParseInt(part, &hi)
                                        : ParseInt(std::string_view(part).substr(0, dash), &lo) &&
                                              ParseInt(std::string_view(part).substr(dash + 1), &hi);
    if (!ok || lo > hi || hi >= 1024)
      return Result<std::vector<int>>(ErrorCode::kInvalidArgument,
                                      "'" + text + "' is not a CPU list (e.g. 0-3,8)");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

Result<Knob> ParseKnobFlag(const std::string& text, const std::vector<std::string>& command) {
  auto fail = [&](const std::string& why) { return Result<Knob>(ErrorCode::kInvalidArgument, "--knob " + text + ": " + why); };
  size_t eq = text.find('=');
  if (eq == std::string::npos) return fail("expected NAME=v1,v2,...");
  Knob k;
  k.name = text.substr(0, eq);
  if (k.name != kAffinityKnob && !IsEnvName(k.name))
    return fail("'" + k.name + "' is no environment variable name (letters, digits, _) nor " + kAffinityKnob);
  k.values = SplitCommas(text.substr(eq + 1));
  if (k.values.size() < 2) return fail("give at least two values, the first the baseline's");
  for (size_t i = 0; i < k.values.size(); ++i) {
    if (k.values[i].empty()) return fail("an empty value");
    if (std::find(k.values.begin(), k.values.begin() + i, k.values[i]) != k.values.begin() + i)
      return fail("'" + k.values[i] + "' is listed twice");
  }
  if (k.name == kAffinityKnob) {
    k.kind = KnobKind::kAffinity;
    for (const auto& v : k.values)
      if (auto cpus = ParseCpuList(v); !cpus.ok()) return fail(cpus.message());
  } else {
    const std::string placeholder = "{" + k.name + "}";
    for (const auto& a : command)
      if (a.find(placeholder) != std::string::npos) k.kind = KnobKind::kArgv;
  }
  return k;
}

std::string KnobValueText(const Knob& k, size_t index) {
  if (index == 0 && k.inherited) return k.name + (k.kind == KnobKind::kAffinity ? " inherited" : " unset");
  return k.name + "=" + k.values[index];
}

Result<TrialSpec> ApplySetting(const std::vector<std::string>& command, const std::vector<Knob>& knobs,
                               const Setting& setting) {
  TrialSpec spec;
  spec.argv = command;
  for (size_t i = 0; i < knobs.size(); ++i) {
    const Knob& k = knobs[i];
    if (setting[i] == 0 && k.inherited) continue;
    const std::string& v = k.values[setting[i]];
    switch (k.kind) {
      case KnobKind::kEnv:
        spec.env.emplace_back(k.name, v);
        break;
      case KnobKind::kArgv: {
        const std::string placeholder = "{" + k.name + "}";
        for (auto& a : spec.argv) a = ReplaceAll(a, placeholder, v);
        break;
      }
      case KnobKind::kAffinity: {
        auto cpus = ParseCpuList(v);
        if (!cpus.ok()) return Result<TrialSpec>(cpus.status());
        spec.cpus = std::move(*cpus);
        spec.affinity = v;
        break;
      }
    }
  }
  return spec;
}

std::string ReplaceAll(const std::string& text, const std::string& token, const std::string& with) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = text.find(token, from)) != std::string::npos; from = at + token.size())
    out += text.substr(from, at - from) + with;
  return out + text.substr(from);
}

}  // namespace stepdoctor::tune
