#include "stepdoctor/render/whatif_render.h"

#include <fmt/format.h>

#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/render/kernel_views_json.h"

namespace stepdoctor {
namespace {

std::string Ms(double ms) { return ms >= 100 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.1f} ms", ms); }
std::string Bare(double ms) { return ms >= 100 ? fmt::format("{:.0f}", ms) : fmt::format("{:.1f}", ms); }

}  // namespace

std::string PredictionLine(const Prediction& p) {
  if (!p.predicted) return "cannot predict: " + p.why_not;
  if (p.batch_scale != 1)
    return fmt::format("predicted {} per step of {:g}x the items ({}-{} ms): {:.2f}x the items per second, bound by {}",
                       Ms(p.predicted_step_ms), p.batch_scale, Bare(p.low_ms), Bare(p.high_ms),
                       p.throughput_speedup, p.bound_by);
  return fmt::format("predicted {} per step ({:.2f}x; {}-{} ms), bound by {}", Ms(p.predicted_step_ms), p.speedup,
                     Bare(p.low_ms), Bare(p.high_ms), p.bound_by);
}

std::string RenderWhatIfText(const WhatIfReport& r) {
  std::string out;
  for (size_t i = 0; i < r.predictions.size(); ++i) {
    const Prediction& p = r.predictions[i];
    if (i == 0 && r.steps == 1)
      out += fmt::format("today: {} per step (one step recorded)\n", Ms(p.baseline_step_ms));
    else if (i == 0)
      out += fmt::format("today: {} per step (mean of {} steps; median {})\n", Ms(p.baseline_step_ms), r.steps,
                         Ms(p.baseline_median_ms));
    out += fmt::format("\n--fix {}: {}\n", p.fix, PredictionLine(p));
    if (!p.predicted) continue;
    if (!p.critical_path.empty()) {
      out += "  predicted step:";
      for (size_t k = 0; k < p.critical_path.size(); ++k)
        out += fmt::format("{} {} {}", k ? "," : "", p.critical_path[k].part, Ms(p.critical_path[k].ms));
      out += "\n";
    }
    for (const auto& a : p.assumptions) out += "  assumes: " + a + "\n";
  }
  if (!r.notes.empty()) out += "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

std::string RenderWhatIfJson(const WhatIfReport& r) {
  JsonWriter j;
  j.BeginObject();
  j.Key("inputs").StringArray(r.inputs);
  j.Key("format").String(r.format);
  j.Key("steps").Int(r.steps);
  j.Key("cores");
  if (r.cores > 0) j.Int(r.cores);
  else j.Null();
  j.Key("predictions").BeginArray();
  for (const auto& p : r.predictions) {
    j.BeginObject();
    j.Key("fix").String(p.fix);
    j.Key("predicted").Bool(p.predicted);
    j.Key("baseline_step_ms").Number(p.baseline_step_ms, 3);
    j.Key("baseline_median_ms").Number(p.baseline_median_ms, 3);
    if (!p.predicted) {
      j.Key("why_not").String(p.why_not);
      j.EndObject();
      continue;
    }
    j.Key("model_baseline_ms").Number(p.model_baseline_ms, 3);
    j.Key("predicted_step_ms").Number(p.predicted_step_ms, 3);
    j.Key("predicted_median_ms").Number(p.predicted_median_ms, 3);
    j.Key("low_ms").Number(p.low_ms, 3);
    j.Key("high_ms").Number(p.high_ms, 3);
    j.Key("speedup").Number(p.speedup, 3);
    j.Key("batch_scale").Number(p.batch_scale, 3);
    j.Key("throughput_speedup").Number(p.throughput_speedup, 3);
    j.Key("bound_by").String(p.bound_by);
    j.Key("assumptions").StringArray(p.assumptions);
    j.Key("critical_path").BeginArray();
    for (const auto& c : p.critical_path) {
      j.BeginObject();
      j.Key("part").String(c.part);
      j.Key("ms").Number(c.ms, 3);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("notes").StringArray(r.notes);
  j.Key("critical_path");
  WriteCriticalPathSteps(j, r.critical_path);
  j.EndObject();
  return j.Take() + "\n";
}

}  // namespace stepdoctor
