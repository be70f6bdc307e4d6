// ScalarsSummary -> JSON for machines. Versioned by schema_version (kScalarsSchemaVersion); the
// fields are documented in docs/json-report.md.
#include <algorithm>
#include <cmath>

#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/render/scalars_render.h"

namespace stepdoctor {
namespace {

// Logged values keep about 7 significant digits (they are float32), whatever their size, so a
// learning rate of 3e-5 does not round to 0.
void Value(JsonWriter& j, double v) {
  int decimals = 3;
  if (std::isfinite(v) && v != 0) decimals = std::max(0, 6 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  j.Number(v, decimals);
}

void OptNumber(JsonWriter& j, const std::optional<double>& v, int decimals) {
  if (v) j.Number(*v, decimals);
  else j.Null();
}

}  // namespace

std::string RenderScalarsJson(const ScalarsSummary& s, const RenderOptions&) {
  JsonWriter j;
  j.BeginObject();
  j.Key("schema_version").Int(s.schema_version);
  j.Key("inputs").StringArray(s.inputs);
  j.Key("tags").BeginArray();
  for (const auto& g : s.tags) {
    j.BeginObject();
    j.Key("run").String(g.run);
    j.Key("tag").String(g.tag);
    j.Key("count").Int(g.count);
    j.Key("first_step").Int(g.first_step);
    j.Key("last_step").Int(g.last_step);
    j.Key("last_value");
    Value(j, g.last_value);
    j.Key("min_value");
    Value(j, g.min_value);
    j.Key("max_value");
    Value(j, g.max_value);
    j.Key("trend").String(ScalarTrendName(g.trend));
    j.Key("trend_change_pct");
    OptNumber(j, g.trend_change_pct, 2);
    j.Key("steps_per_second");
    OptNumber(j, g.steps_per_second, 4);
    j.EndObject();
  }
  j.EndArray();
  j.Key("stall_factor").Number(s.stall_factor, 2);
  j.Key("runs").BeginArray();
  for (const auto& r : s.runs) {
    j.BeginObject();
    j.Key("run").String(r.run);
    j.Key("first_step").Int(r.first_step);
    j.Key("last_step").Int(r.last_step);
    j.Key("seconds_per_step").Number(r.seconds_per_step, 4);
    j.Key("steps_per_second").Number(r.steps_per_second, 4);
    j.Key("wall_s").Number(r.wall_s, 3);
    j.Key("lost_s").Number(r.lost_s, 3);
    j.Key("stall_share_pct").Number(r.stall_share_pct, 2);
    j.Key("period_steps").Int(r.period_steps);
    j.Key("stalls").BeginArray();
    for (const auto& st : r.stalls) {
      j.BeginObject();
      j.Key("step").Int(st.step);
      j.Key("gap_s").Number(st.gap_s, 3);
      j.Key("excess_s").Number(st.excess_s, 3);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("notes").StringArray(s.notes);
  j.EndObject();
  std::string out = j.Take();
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

}  // namespace stepdoctor
