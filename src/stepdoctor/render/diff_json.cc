// DiffReport -> JSON for machines. Versioned by schema_version (kDiffSchemaVersion); the
// fields are documented in docs/reports.md.
#include "stepdoctor/render/diff_render.h"
#include "stepdoctor/render/json_writer.h"

namespace stepdoctor {
namespace {

void OptNumber(JsonWriter& j, const std::optional<double>& v, int decimals = 3) {
  if (v) j.Number(*v, decimals);
  else j.Null();
}

void Side(JsonWriter& j, const DiffSide& s) {
  j.BeginObject();
  j.Key("inputs").StringArray(s.inputs);
  j.Key("format").String(s.format);
  j.Key("verdict").BeginObject();
  j.Key("bottleneck").String(BottleneckName(s.verdict.bottleneck));
  j.Key("summary").String(s.verdict.summary);
  j.EndObject();
  j.Key("step_source").String(s.step_source);
  j.Key("whole_window").Bool(s.whole_window);
  j.Key("step_count").Int(s.step_count);
  j.Key("median_step_ms").Number(s.median_step_ms);
  j.Key("mean_step_ms").Number(s.mean_step_ms);
  j.Key("p90_step_ms").Number(s.p90_step_ms);
  j.EndObject();
}

void Names(JsonWriter& j, const std::vector<NameDelta>& v) {
  j.BeginArray();
  for (const auto& n : v) {
    j.BeginObject();
    j.Key("name").String(n.name);
    j.Key("before_ms").Number(n.before_ms, 4);
    j.Key("after_ms").Number(n.after_ms, 4);
    j.Key("delta_ms").Number(n.delta_ms, 4);
    j.Key("change_pct");
    OptNumber(j, n.change_pct, 2);
    j.Key("before_count").Number(n.before_count, 2);
    j.Key("after_count").Number(n.after_count, 2);
    j.EndObject();
  }
  j.EndArray();
}

void Changes(JsonWriter& j, const NameChanges& c) {
  j.BeginObject();
  j.Key("before_total_ms").Number(c.before_total_ms);
  j.Key("after_total_ms").Number(c.after_total_ms);
  j.Key("slower_total").Int(c.slower_total);
  j.Key("faster_total").Int(c.faster_total);
  j.Key("added_total").Int(c.added_total);
  j.Key("removed_total").Int(c.removed_total);
  j.Key("slower");
  Names(j, c.slower);
  j.Key("faster");
  Names(j, c.faster);
  j.Key("added");
  Names(j, c.added);
  j.Key("removed");
  Names(j, c.removed);
  j.EndObject();
}

void SeverityValue(JsonWriter& j, const std::optional<FindingSeverity>& s) {
  if (s) j.String(FindingSeverityName(*s));
  else j.Null();
}

}  // namespace

std::string RenderDiffJson(const DiffReport& d, const RenderOptions&) {
  JsonWriter j;
  j.BeginObject();
  j.Key("schema_version").Int(d.schema_version);
  j.Key("kind").String("diff");
  j.Key("tool_version").String(d.tool_version);
  j.Key("before");
  Side(j, d.before);
  j.Key("after");
  Side(j, d.after);
  j.Key("step_delta_ms").Number(d.step_delta_ms);
  j.Key("step_change_pct");
  OptNumber(j, d.step_change_pct, 2);
  j.Key("speedup");
  OptNumber(j, d.speedup);
  j.Key("verdict_changed").Bool(d.verdict_changed);

  j.Key("categories").BeginArray();
  for (const auto& c : d.categories) {
    j.BeginObject();
    j.Key("category").String(c.category);
    j.Key("before_ms").Number(c.before_ms);
    j.Key("after_ms").Number(c.after_ms);
    j.Key("delta_ms").Number(c.delta_ms);
    j.Key("change_pct");
    OptNumber(j, c.change_pct, 2);
    j.Key("before_pct").Number(c.before_pct, 2);
    j.Key("after_pct").Number(c.after_pct, 2);
    j.Key("delta_pp").Number(c.delta_pp, 2);
    j.EndObject();
  }
  j.EndArray();

  j.Key("findings").BeginArray();
  for (const auto& f : d.findings) {
    j.BeginObject();
    j.Key("id").String(f.id);
    j.Key("before");
    SeverityValue(j, f.before);
    j.Key("after");
    SeverityValue(j, f.after);
    j.Key("before_share_pct").Number(f.before_share_pct, 2);
    j.Key("after_share_pct").Number(f.after_share_pct, 2);
    j.Key("title").String(f.after_title);
    j.EndObject();
  }
  j.EndArray();

  j.Key("predictions").BeginArray();
  for (const auto& c : d.predictions) {
    j.BeginObject();
    j.Key("finding").String(c.finding);
    j.Key("fix").String(c.fix);
    j.Key("predicted_step_ms").Number(c.predicted_step_ms);
    j.Key("low_ms").Number(c.low_ms);
    j.Key("high_ms").Number(c.high_ms);
    j.Key("measured_step_ms").Number(c.measured_step_ms);
    j.Key("measured_median_ms").Number(c.measured_median_ms);
    j.Key("error_pct").Number(c.error_pct, 2);
    j.Key("within_range").Bool(c.within_range);
    j.EndObject();
  }
  j.EndArray();

  j.Key("per_step").Bool(d.per_step);
  j.Key("unit").String(d.unit);
  j.Key("kernels");
  Changes(j, d.kernels);
  j.Key("ops");
  Changes(j, d.ops);
  j.Key("notes").StringArray(d.notes);
  j.Key("diagnostics").StringArray(d.diagnostics);
  j.EndObject();
  std::string out = j.Take();
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

}  // namespace stepdoctor
