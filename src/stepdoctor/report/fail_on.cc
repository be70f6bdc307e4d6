#include "stepdoctor/report/fail_on.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace stepdoctor {
namespace {

constexpr Bottleneck kBottlenecks[] = {Bottleneck::kInput, Bottleneck::kHost, Bottleneck::kDeviceCompute,
                                       Bottleneck::kCommunication, Bottleneck::kUnknown};
constexpr FindingSeverity kSeverities[] = {FindingSeverity::kNone, FindingSeverity::kLow, FindingSeverity::kModerate,
                                           FindingSeverity::kHigh};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }

template <typename T>
bool Compare(T lhs, FailOnOp op, T rhs) {
  switch (op) {
    case FailOnOp::kGe: return lhs >= rhs;
    case FailOnOp::kGt: return lhs > rhs;
    case FailOnOp::kLe: return lhs <= rhs;
    case FailOnOp::kLt: return lhs < rhs;
    case FailOnOp::kEq: return lhs == rhs;
    case FailOnOp::kNe: return lhs != rhs;
    case FailOnOp::kNone: break;
  }
  return false;
}

bool Known(const std::vector<std::string>& names, std::string_view n) {
  return names.empty() || std::find(names.begin(), names.end(), n) != names.end();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Number {
  double value = 0;
  std::string unit;  // "", "%", "ms", "x"
};

bool ParseNumber(std::string_view s, Number* n) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, n->value);
  if (ec != std::errc() || !std::isfinite(n->value)) return false;
  n->unit = Trim(std::string_view(p, end - p));
  return n->unit.empty() || n->unit == "%" || n->unit == "ms" || n->unit == "x";
}

const Finding* FindFinding(const Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string Fmt1(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

Result<FailOnExpr> ParseFailOn(std::string_view text, const FailOnVocabulary& vocab) {
  FailOnExpr e;
  e.text = std::string(Trim(text));
  auto bad = [&e](const std::string& why) -> Result<FailOnExpr> {
    return Result<FailOnExpr>(ErrorCode::kInvalidArgument, fmt::format("bad --fail-on '{}': {}", e.text, why));
  };
  std::string_view t = e.text;
  size_t op_at = t.find_first_of("<>=!");
  std::string_view subject = Trim(t.substr(0, op_at));
  std::string_view value;
  if (op_at != std::string_view::npos) {
    std::string_view rest = t.substr(op_at);
    size_t len = 1;
    if (rest.starts_with(">=")) e.op = FailOnOp::kGe, len = 2;
    else if (rest.starts_with("<=")) e.op = FailOnOp::kLe, len = 2;
    else if (rest.starts_with("==")) e.op = FailOnOp::kEq, len = 2;
    else if (rest.starts_with("!=")) e.op = FailOnOp::kNe, len = 2;
    else if (rest[0] == '>') e.op = FailOnOp::kGt;
    else if (rest[0] == '<') e.op = FailOnOp::kLt;
    else if (rest[0] == '=') e.op = FailOnOp::kEq;
    else return bad("'!' must be followed by '='");
    value = Trim(rest.substr(len));
    if (value.empty()) return bad("nothing after the comparison");
    if (value.find_first_of("<>=!") != std::string_view::npos) return bad("more than one comparison");
  }
  if (subject.empty()) return bad("no subject before the comparison");
  if (!std::all_of(subject.begin(), subject.end(), IsNameChar))
    return bad("a subject is lower-case letters, digits, '_' and '.'");

  Number num;
  bool numeric = !value.empty() && ParseNumber(value, &num);
  auto need_number = [&](std::initializer_list<const char*> units, const char* what) -> std::string {
    if (e.op == FailOnOp::kNone) return fmt::format("{} needs a comparison, e.g. {}", subject, what);
    if (!numeric) return fmt::format("'{}' is not a number (e.g. {})", value, what);
    for (const char* u : units)
      if (num.unit == u) return "";
    return fmt::format("'{}' has the wrong unit (e.g. {})", value, what);
  };

  if (subject == "verdict") {
    e.subject = FailOnSubject::kVerdict;
    if (e.op != FailOnOp::kEq && e.op != FailOnOp::kNe) return bad("verdict takes = or !=, e.g. verdict=input");
    std::vector<std::string> names;
    for (Bottleneck b : kBottlenecks) {
      names.push_back(BottleneckName(b));
      if (value == names.back()) {
        e.bottleneck = b;
        return e;
      }
    }
    return bad(fmt::format("unknown verdict '{}' (one of {})", value, Join(names)));
  }
  if (subject == "step_time") {
    e.subject = FailOnSubject::kStepTimeMs;
    if (auto why = need_number({"ms", ""}, "step_time>150ms"); !why.empty()) return bad(why);
    e.number = num.value;
    return e;
  }
  if (subject == "step_time_regression") {
    if (auto why = need_number({"%", "ms"}, "step_time_regression>5%"); !why.empty()) return bad(why);
    e.subject = num.unit == "%" ? FailOnSubject::kStepRegressionPct : FailOnSubject::kStepRegressionMs;
    e.number = num.value;
    return e;
  }
  if (subject.starts_with("breakdown.")) {
    e.name = std::string(subject.substr(10));
    if (e.name.empty() || !Known(vocab.categories, e.name))
      return bad(fmt::format("unknown category '{}' (one of {})", e.name, Join(vocab.categories)));
    if (auto why = need_number({"%", "ms"}, "breakdown.input>30%"); !why.empty()) return bad(why);
    e.subject = num.unit == "%" ? FailOnSubject::kBreakdownPct : FailOnSubject::kBreakdownMs;
    e.number = num.value;
    return e;
  }

  // A finding id, with an optional field.
  size_t dot = subject.find('.');
  e.name = std::string(subject.substr(0, dot));
  std::string_view field = dot == std::string_view::npos ? "" : subject.substr(dot + 1);
  if (!Known(vocab.finding_ids, e.name))
    return bad(fmt::format("unknown finding '{}' (one of {}; or verdict, breakdown.CATEGORY, step_time, "
                           "step_time_regression)",
                           e.name, Join(vocab.finding_ids)));
  if (field == "share") {
    e.subject = FailOnSubject::kFindingShare;
    if (auto why = need_number({"%", ""}, fmt::format("{}.share>30%", e.name).c_str()); !why.empty()) return bad(why);
    e.number = num.value;
    return e;
  }
  if (field == "gain") {
    e.subject = FailOnSubject::kFindingGain;
    if (auto why = need_number({"x", ""}, fmt::format("{}.gain>1.3x", e.name).c_str()); !why.empty()) return bad(why);
    e.number = num.value;
    return e;
  }
  if (!field.empty() && field != "severity")
    return bad(fmt::format("unknown field '{}' (share, gain or severity)", field));
  if (e.op == FailOnOp::kNone) {
    if (!field.empty()) return bad(fmt::format("{}.severity needs a comparison, e.g. {}>=moderate", e.name, e.name));
    e.subject = FailOnSubject::kFindingPresent;
    return e;
  }
  e.subject = FailOnSubject::kFindingSeverity;
  std::vector<std::string> names;
  for (FindingSeverity s : kSeverities) {
    names.push_back(FindingSeverityName(s));
    if (value == names.back()) {
      e.severity = s;
      return e;
    }
  }
  return bad(fmt::format("unknown severity '{}' (one of {})", value, Join(names)));
}

bool FailOnNeedsDiff(const FailOnExpr& e) {
  return e.subject == FailOnSubject::kStepRegressionPct || e.subject == FailOnSubject::kStepRegressionMs;
}

Result<FailOnOutcome> EvaluateFailOn(const FailOnExpr& e, const Report& report, const DiffReport* diff) {
  FailOnOutcome out;
  const Finding* f = e.name.empty() ? nullptr : FindFinding(report, e.name);
  switch (e.subject) {
    case FailOnSubject::kFindingPresent:
    case FailOnSubject::kFindingSeverity: {
      FindingSeverity s = f ? f->severity : FindingSeverity::kNone;
      out.met = e.subject == FailOnSubject::kFindingPresent ? s >= FindingSeverity::kLow : Compare(s, e.op, e.severity);
      out.reason = f ? fmt::format("{} is {} ({}% of step time)", e.name, FindingSeverityName(s), Fmt1(f->share_pct))
                     : fmt::format("{} is not reported", e.name);
      break;
    }
    case FailOnSubject::kFindingShare: {
      double v = f ? f->share_pct : 0;
      out.met = Compare(v, e.op, e.number);
      out.reason = f ? fmt::format("{} covers {}% of step time", e.name, Fmt1(v))
                     : fmt::format("{} is not reported (0% of step time)", e.name);
      break;
    }
    case FailOnSubject::kFindingGain: {
      double v = f ? f->gain_upper_bound : 1.0;
      out.met = Compare(v, e.op, e.number);
      out.reason = f ? fmt::format("{} gains up to {:.2f}x", e.name, v)
                     : fmt::format("{} is not reported (no gain)", e.name);
      break;
    }
    case FailOnSubject::kVerdict:
      out.met = Compare(report.verdict.bottleneck, e.op, e.bottleneck);
      out.reason = fmt::format("the verdict is {}", BottleneckName(report.verdict.bottleneck));
      break;
    case FailOnSubject::kBreakdownPct:
    case FailOnSubject::kBreakdownMs: {
      const BreakdownEntry* b = nullptr;
      for (const auto& x : report.breakdown)
        if (x.category == e.name) b = &x;
      double pct = b ? b->pct : 0, ms = b ? b->ms_per_step : 0;
      out.met = Compare(e.subject == FailOnSubject::kBreakdownPct ? pct : ms, e.op, e.number);
      out.reason = fmt::format("{} is {}% of step time ({} ms/step)", e.name, Fmt1(pct), Fmt1(ms));
      break;
    }
    case FailOnSubject::kStepTimeMs:
      out.met = Compare(report.steps.median_ms, e.op, e.number);
      out.reason = fmt::format("the median step takes {} ms", Fmt1(report.steps.median_ms));
      break;
    case FailOnSubject::kStepRegressionPct:
    case FailOnSubject::kStepRegressionMs: {
      if (!diff)
        return Result<FailOnOutcome>(ErrorCode::kInvalidArgument,
                                     fmt::format("--fail-on '{}' compares two runs: use it with `stepdoctor diff`", e.text));
      double v = e.subject == FailOnSubject::kStepRegressionMs ? diff->step_delta_ms : diff->step_change_pct.value_or(0);
      out.met = Compare(v, e.op, e.number);
      std::string pct = diff->step_change_pct ? fmt::format("{:+.1f}%", *diff->step_change_pct) : "n/a";
      out.reason = fmt::format("the median step went from {} ms to {} ms ({}, {:+.1f} ms)",
                               Fmt1(diff->before.median_step_ms), Fmt1(diff->after.median_step_ms), pct,
                               diff->step_delta_ms);
      break;
    }
  }
  return out;
}

}  // namespace stepdoctor
