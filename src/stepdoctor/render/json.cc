// JSON report for machines. The schema is versioned (schema_version) and documented in
// docs/json-report.md; fields are only ever added within a version.
#include "stepdoctor/render/collective_bandwidth_json.h"
#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/render/kernel_views_json.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

void TopEvents(JsonWriter& j, const std::vector<TopEvent>& rows) {
  j.BeginArray();
  for (const auto& t : rows) {
    j.BeginObject();
    j.Key("name").String(t.name);
    j.Key("total_ms").Number(t.total_ms);
    j.Key("count").Int(t.count);
    j.Key("share_pct").Number(t.share_pct, 2);
    j.EndObject();
  }
  j.EndArray();
}

}  // namespace

std::string RenderJson(const Report& r, const RenderOptions& o) {
  JsonWriter j(2, o.exact_numbers);
  j.BeginObject();
  j.Key("schema_version").Int(r.schema_version);
  j.Key("tool_version").String(r.tool_version);
  j.Key("inputs").StringArray(r.inputs);
  j.Key("format").String(r.format);

  j.Key("verdict").BeginObject();
  j.Key("bottleneck").String(BottleneckName(r.verdict.bottleneck));
  j.Key("summary").String(r.verdict.summary);
  j.EndObject();

  const Coverage& c = r.coverage;
  j.Key("coverage").BeginObject();
  j.Key("framework").String(c.framework);
  j.Key("device_activity").String(c.device_activity);
  j.Key("steps").String(c.steps);
  j.Key("confidence").String(c.confidence);
  j.Key("evidence").StringArray(c.evidence);
  j.Key("applied").StringArray(c.applied);
  j.EndObject();

  const StepSummary& s = r.steps;
  j.Key("steps").BeginObject();
  j.Key("source").String(s.source);
  j.Key("whole_window").Bool(s.whole_window);
  j.Key("inferred").Bool(s.inferred);
  j.Key("warmup").BeginArray();
  for (const auto& w : s.warmup) {
    j.BeginObject();
    j.Key("number").Int(w.number);
    j.Key("duration_ms").Number(w.duration_ms);
    j.EndObject();
  }
  j.EndArray();
  j.Key("count").Int(s.count);
  j.Key("median_ms").Number(s.median_ms);
  j.Key("p90_ms").Number(s.p90_ms);
  j.Key("max_ms").Number(s.max_ms);
  j.Key("min_ms").Number(s.min_ms);
  j.Key("mean_ms").Number(s.mean_ms);
  j.Key("excluded_partial").Int(s.excluded_partial);
  j.Key("outliers").BeginArray();
  for (auto n : s.outlier_numbers) j.Int(n);
  j.EndArray();
  j.Key("categories").StringArray(s.categories);
  j.Key("per_step").BeginArray();
  for (const auto& st : s.steps) {
    j.BeginObject();
    j.Key("number").Int(st.number);
    j.Key("duration_ms").Number(st.duration_ms);
    j.Key("category_ms").BeginArray();
    for (double v : st.category_ms) j.Number(v);
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();

  j.Key("breakdown").BeginObject();
  for (const auto& b : r.breakdown) j.Key(b.category).Number(b.pct, 2);
  j.EndObject();
  j.Key("breakdown_ms_per_step").BeginObject();
  for (const auto& b : r.breakdown) j.Key(b.category).Number(b.ms_per_step);
  j.EndObject();

  j.Key("breakdown_detail").BeginObject();
  for (const auto& b : r.breakdown_detail) j.Key(b.category).Number(b.pct, 2);
  j.EndObject();

  j.Key("devices").BeginArray();
  for (const auto& d : r.devices) {
    j.BeginObject();
    j.Key("worker").String(d.worker);
    j.Key("device").String(d.device);
    j.Key("span_us").Number(d.span_us);
    j.Key("idle_pct").Number(d.idle_pct, 2);
    j.Key("compute_pct").Number(d.compute_pct, 2);
    j.Key("non_compute_pct").Number(d.non_compute_pct, 2);
    j.Key("comm_comp_overlap_pct");
    if (d.comm_comp_overlap_pct) j.Number(*d.comm_comp_overlap_pct, 2);
    else j.Null();
    j.Key("kernel_count").Int(d.kernel_count);
    j.EndObject();
  }
  j.EndArray();

  j.Key("workers").BeginArray();
  for (const auto& w : r.workers) {
    j.BeginObject();
    j.Key("name").String(w.name);
    j.Key("rank").Int(w.rank);
    j.Key("steps").Int(w.steps);
    j.Key("median_step_ms").Number(w.median_step_ms);
    j.Key("compute_ms").Number(w.compute_ms);
    j.Key("host_ms").Number(w.host_ms);
    j.Key("collectives_ms").Number(w.collectives_ms);
    j.Key("input_ms").Number(w.input_ms);
    // From the ranks aligned at their collectives (`alignment`); null where they were not.
    auto optional = [&](const char* key, const std::optional<double>& v) {
      j.Key(key);
      if (v) j.Number(*v);
      else j.Null();
    };
    optional("wait_ms", w.wait_ms);
    optional("late_ms", w.late_ms);
    optional("last_in_pct", w.last_in_pct);
    optional("clock_skew_ms", w.clock_skew_ms);
    j.Key("step_numbers").BeginArray();
    for (int64_t n : w.step_numbers) j.Int(n);
    j.EndArray();
    j.Key("step_ms").BeginArray();
    for (double ms : w.step_ms) j.Number(ms);
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("alignment");
  if (!r.alignment) {
    j.Null();
  } else {
    const auto& a = *r.alignment;
    j.BeginObject();
    j.Key("aligned").Bool(a.aligned);
    j.Key("why_not").String(a.why_not);
    j.Key("collectives_on").String(a.collectives_on);
    j.Key("matched_by").String(a.matched_by);
    j.Key("matched").Int(a.matched);
    j.Key("steps").Int(a.steps);
    j.Key("unmatched_steps").Int(a.unmatched_steps);
    j.Key("max_skew_ms").Number(a.max_skew_ms);
    j.Key("collectives").BeginArray();
    for (const auto& c : a.collectives) {
      j.BeginObject();
      j.Key("name").String(c.name);
      j.Key("calls").Int(c.calls);
      j.Key("mean_wait_ms").Number(c.mean_wait_ms);
      j.Key("mean_transfer_ms").Number(c.mean_transfer_ms);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.Key("collective_bandwidth");
  if (r.collective_bandwidth) WriteCollectiveBandwidth(j, *r.collective_bandwidth);
  else j.Null();

  j.Key("tensorflow_view").BeginArray();
  for (const auto& v : r.tensorflow_view) {
    j.BeginObject();
    j.Key("host").String(v.host);
    j.Key("source").String(v.source);
    j.Key("input_pct");
    if (v.input_pct) j.Number(*v.input_pct, 2);
    else j.Null();
    j.Key("step_ms").Number(v.step_ms);
    j.Key("steps").Int(v.steps);
    j.Key("device").String(v.device);
    j.Key("bottleneck").String(v.bottleneck);
    j.Key("recommendation").String(v.recommendation);
    j.Key("other_statements").StringArray(v.other_statements);
    j.Key("breakdown").BeginArray();
    for (const auto& b : v.breakdown) {
      j.BeginObject();
      j.Key("category").String(b.category);
      j.Key("ms_per_step").Number(b.ms_per_step);
      j.Key("pct").Number(b.pct, 2);
      j.EndObject();
    }
    j.EndArray();
    auto optional = [&](const char* key, const std::optional<double>& x) {
      j.Key(key);
      if (x) j.Number(*x, 2);
      else j.Null();
    };
    optional("device_idle_pct", v.device_idle_pct);
    optional("eager_device_pct", v.eager_device_pct);
    optional("eager_host_pct", v.eager_host_pct);
    j.Key("op_types").BeginArray();
    for (const auto& o : v.op_types) {
      j.BeginObject();
      j.Key("where").String(o.where);
      j.Key("type").String(o.type);
      j.Key("occurrences").Int(o.occurrences);
      j.Key("self_ms").Number(o.self_ms);
      j.Key("pct").Number(o.pct, 2);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();

  j.Key("findings").BeginArray();
  for (const auto& f : r.findings) {
    j.BeginObject();
    j.Key("id").String(f.id);
    j.Key("severity").String(FindingSeverityName(f.severity));
    j.Key("title").String(f.title);
    j.Key("share_pct").Number(f.share_pct, 2);
    j.Key("gain_upper_bound").Number(f.gain_upper_bound, 3);
    j.Key("gain").String(f.gain_text);
    // The what-if replay of the finding's fix (docs/whatif.md); null where there is none.
    j.Key("predicted_step_ms");
    if (f.prediction && f.prediction->predicted) {
      j.Number(f.prediction->predicted_step_ms, 3);
      j.Key("predicted_low_ms").Number(f.prediction->low_ms, 3);
      j.Key("predicted_high_ms").Number(f.prediction->high_ms, 3);
      j.Key("predicted_speedup").Number(f.prediction->speedup, 3);
      if (f.prediction->batch_scale != 1) {  // the batch fix: a longer step of more items
        j.Key("predicted_batch_scale").Number(f.prediction->batch_scale, 3);
        j.Key("predicted_throughput_speedup").Number(f.prediction->throughput_speedup, 3);
      }
      j.Key("predicted_bound_by").String(f.prediction->bound_by);
      j.Key("assumptions").StringArray(f.prediction->assumptions);
    } else {
      j.Null();
      if (f.prediction) j.Key("prediction_unavailable").String(f.prediction->why_not);
    }
    j.Key("evidence").BeginArray();
    for (const auto& e : f.evidence) {
      j.BeginObject();
      j.Key("label").String(e.label);
      j.Key("value").String(e.value);
      j.EndObject();
    }
    j.EndArray();
    j.Key("top_events");
    TopEvents(j, f.top_events);
    j.Key("figures").BeginObject();
    for (const auto& [key, v] : f.figures) j.Key(key).Number(v);
    j.EndObject();
    j.Key("fix").BeginObject();
    j.Key("summary").String(f.fix.summary);
    j.Key("tensorflow").String(f.fix.tensorflow);
    j.Key("pytorch").String(f.fix.pytorch);
    j.EndObject();
    j.EndObject();
  }
  j.EndArray();

  j.Key("top_kernels");
  TopEvents(j, r.top_kernels);
  j.Key("top_ops");
  TopEvents(j, r.top_ops);
  j.Key("critical_path");
  if (r.critical_path) WriteCriticalPath(j, *r.critical_path);
  else j.Null();
  j.Key("kernel_tables");
  if (r.kernel_tables) WriteKernelTables(j, *r.kernel_tables);
  else j.Null();
  j.Key("notes").StringArray(r.notes);
  j.Key("diagnostics").StringArray(r.diagnostics);
  j.EndObject();
  std::string out = j.Take();
  out += '\n';
  return out;
}

}  // namespace stepdoctor
