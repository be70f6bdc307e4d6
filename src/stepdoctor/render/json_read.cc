// The JSON report read back (json_read.h): one reader per object RenderJson writes, in the order
// it writes them.
#include "stepdoctor/render/json_read.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "stepdoctor/render/collective_bandwidth_json.h"
#include "stepdoctor/render/json_reader.h"
#include "stepdoctor/render/kernel_views_json_read.h"

namespace stepdoctor {
namespace {

using json_read::Bad;
using json_read::element;
using json_read::Obj;
using json_read::object;
using json_read::Path;

Status ReadTopEvent(const Obj& o, TopEvent* t) {
  SD_JSON_TRY(o.Field("name", &t->name));
  SD_JSON_TRY(o.Field("total_ms", &t->total_ms));
  SD_JSON_TRY(o.Field("count", &t->count));
  return o.Field("share_pct", &t->share_pct);
}

Status ReadBreakdownEntry(const Obj& o, BreakdownEntry* b) {
  SD_JSON_TRY(o.Field("category", &b->category));
  SD_JSON_TRY(o.Field("ms_per_step", &b->ms_per_step));
  return o.Field("pct", &b->pct);
}

Status ReadCoverage(const Obj& o, Coverage* c) {
  SD_JSON_TRY(o.Field("framework", &c->framework));
  SD_JSON_TRY(o.Field("device_activity", &c->device_activity));
  SD_JSON_TRY(o.Field("steps", &c->steps));
  SD_JSON_TRY(o.Field("confidence", &c->confidence));
  SD_JSON_TRY(o.Field("evidence", &c->evidence));
  return o.Field("applied", &c->applied);
}

Status ReadSteps(const Obj& o, StepSummary* s) {
  SD_JSON_TRY(o.Field("source", &s->source));
  SD_JSON_TRY(o.Field("whole_window", &s->whole_window));
  SD_JSON_TRY(o.Field("inferred", &s->inferred));
  SD_JSON_TRY(o.Objects("warmup", &s->warmup, [](const Obj& w, StepRecord* r) -> Status {
    SD_JSON_TRY(w.Field("number", &r->number));
    return w.Field("duration_ms", &r->duration_ms);
  }));
  SD_JSON_TRY(o.Field("count", &s->count));
  SD_JSON_TRY(o.Field("median_ms", &s->median_ms));
  SD_JSON_TRY(o.Field("p90_ms", &s->p90_ms));
  SD_JSON_TRY(o.Field("max_ms", &s->max_ms));
  SD_JSON_TRY(o.Field("min_ms", &s->min_ms));
  SD_JSON_TRY(o.Field("mean_ms", &s->mean_ms));
  SD_JSON_TRY(o.Field("excluded_partial", &s->excluded_partial));
  SD_JSON_TRY(o.Field("outliers", &s->outlier_numbers));
  SD_JSON_TRY(o.Field("categories", &s->categories));
  return o.Objects("per_step", &s->steps, [](const Obj& st, StepRecord* r) -> Status {
    SD_JSON_TRY(st.Field("number", &r->number));
    SD_JSON_TRY(st.Field("duration_ms", &r->duration_ms));
    return st.Field("category_ms", &r->category_ms);
  });
}

// `breakdown` (category -> %) and `breakdown_ms_per_step` (category -> ms) hold one entry each,
// in the same order.
Status ReadBreakdown(const Obj& top, std::vector<BreakdownEntry>* out) {
  std::vector<std::pair<std::string, double>> pct, ms;
  SD_JSON_TRY(top.NamedNumbers("breakdown", &pct));
  SD_JSON_TRY(top.NamedNumbers("breakdown_ms_per_step", &ms));
  out->clear();
  for (size_t i = 0; i < pct.size() || i < ms.size(); ++i) {
    if (i >= pct.size() || i >= ms.size() || pct[i].first != ms[i].first)
      return Bad(top.path().Key("breakdown_ms_per_step"), "does not list the categories of breakdown in its order");
    out->push_back({pct[i].first, ms[i].second, pct[i].second});
  }
  return {};
}

Status ReadDevice(const Obj& o, DeviceUtilization* d) {
  SD_JSON_TRY(o.Field("worker", &d->worker));
  SD_JSON_TRY(o.Field("device", &d->device));
  SD_JSON_TRY(o.Field("span_us", &d->span_us));
  SD_JSON_TRY(o.Field("idle_pct", &d->idle_pct));
  SD_JSON_TRY(o.Field("compute_pct", &d->compute_pct));
  SD_JSON_TRY(o.Field("non_compute_pct", &d->non_compute_pct));
  SD_JSON_TRY(o.Field("comm_comp_overlap_pct", &d->comm_comp_overlap_pct));
  return o.Field("kernel_count", &d->kernel_count);
}

Status ReadWorker(const Obj& o, WorkerRow* w) {
  SD_JSON_TRY(o.Field("name", &w->name));
  SD_JSON_TRY(o.Field("rank", &w->rank));
  SD_JSON_TRY(o.Field("steps", &w->steps));
  SD_JSON_TRY(o.Field("median_step_ms", &w->median_step_ms));
  SD_JSON_TRY(o.Field("compute_ms", &w->compute_ms));
  SD_JSON_TRY(o.Field("host_ms", &w->host_ms));
  SD_JSON_TRY(o.Field("collectives_ms", &w->collectives_ms));
  SD_JSON_TRY(o.Field("input_ms", &w->input_ms));
  SD_JSON_TRY(o.Field("wait_ms", &w->wait_ms));
  SD_JSON_TRY(o.Field("late_ms", &w->late_ms));
  SD_JSON_TRY(o.Field("last_in_pct", &w->last_in_pct));
  SD_JSON_TRY(o.Field("clock_skew_ms", &w->clock_skew_ms));
  SD_JSON_TRY(o.Field("step_numbers", &w->step_numbers));
  return o.Field("step_ms", &w->step_ms);
}

Status ReadAlignment(const Obj& o, RankAlignmentSummary* a) {
  SD_JSON_TRY(o.Field("aligned", &a->aligned));
  SD_JSON_TRY(o.Field("why_not", &a->why_not));
  SD_JSON_TRY(o.Field("collectives_on", &a->collectives_on));
  if (o.Has("matched_by")) SD_JSON_TRY(o.Field("matched_by", &a->matched_by));  // added within version 4
  SD_JSON_TRY(o.Field("matched", &a->matched));
  SD_JSON_TRY(o.Field("steps", &a->steps));
  SD_JSON_TRY(o.Field("unmatched_steps", &a->unmatched_steps));
  SD_JSON_TRY(o.Field("max_skew_ms", &a->max_skew_ms));
  return o.Objects("collectives", &a->collectives, [](const Obj& c, CollectiveRow* row) -> Status {
    SD_JSON_TRY(c.Field("name", &row->name));
    SD_JSON_TRY(c.Field("calls", &row->calls));
    SD_JSON_TRY(c.Field("mean_wait_ms", &row->mean_wait_ms));
    return c.Field("mean_transfer_ms", &row->mean_transfer_ms);
  });
}

Status ReadTensorFlowView(const Obj& o, TensorFlowView* v) {
  SD_JSON_TRY(o.Field("host", &v->host));
  SD_JSON_TRY(o.Field("source", &v->source));
  SD_JSON_TRY(o.Field("input_pct", &v->input_pct));
  SD_JSON_TRY(o.Field("step_ms", &v->step_ms));
  SD_JSON_TRY(o.Field("steps", &v->steps));
  if (o.Has("device")) SD_JSON_TRY(o.Field("device", &v->device));  // reports from before 0.1 lack it
  SD_JSON_TRY(o.Field("bottleneck", &v->bottleneck));
  SD_JSON_TRY(o.Field("recommendation", &v->recommendation));
  SD_JSON_TRY(o.Field("other_statements", &v->other_statements));
  SD_JSON_TRY(o.Objects("breakdown", &v->breakdown, ReadBreakdownEntry));
  if (!o.Has("op_types")) return {};  // added within version 4
  SD_JSON_TRY(o.Field("device_idle_pct", &v->device_idle_pct));
  SD_JSON_TRY(o.Field("eager_device_pct", &v->eager_device_pct));
  SD_JSON_TRY(o.Field("eager_host_pct", &v->eager_host_pct));
  return o.Objects("op_types", &v->op_types, [](const Obj& t, TensorFlowView::OpType* row) -> Status {
    SD_JSON_TRY(t.Field("where", &row->where));
    SD_JSON_TRY(t.Field("type", &row->type));
    SD_JSON_TRY(t.Field("occurrences", &row->occurrences));
    SD_JSON_TRY(t.Field("self_ms", &row->self_ms));
    return t.Field("pct", &row->pct);
  });
}

// `predicted_step_ms` a number (or null beside `predicted_low_ms`: a prediction whose step is not
// finite): predicted; null with `prediction_unavailable`: a fix the model cannot predict; null
// alone: no prediction.
Status ReadPrediction(const Obj& o, std::optional<Prediction>* out) {
  out->reset();
  element step;
  SD_JSON_TRY(o.Get("predicted_step_ms", &step));
  if (!step.is_null() || o.Has("predicted_low_ms")) {
    Prediction p;
    p.predicted = true;
    SD_JSON_TRY(o.Field("predicted_step_ms", &p.predicted_step_ms));
    SD_JSON_TRY(o.Field("predicted_low_ms", &p.low_ms));
    SD_JSON_TRY(o.Field("predicted_high_ms", &p.high_ms));
    SD_JSON_TRY(o.Field("predicted_speedup", &p.speedup));
    if (o.Has("predicted_batch_scale")) {
      SD_JSON_TRY(o.Field("predicted_batch_scale", &p.batch_scale));
      SD_JSON_TRY(o.Field("predicted_throughput_speedup", &p.throughput_speedup));
    }
    SD_JSON_TRY(o.Field("predicted_bound_by", &p.bound_by));
    SD_JSON_TRY(o.Field("assumptions", &p.assumptions));
    *out = std::move(p);
  } else if (o.Has("prediction_unavailable")) {
    Prediction p;
    SD_JSON_TRY(o.Field("prediction_unavailable", &p.why_not));
    *out = std::move(p);
  }
  return {};
}

Status ReadFinding(const Obj& o, Finding* f) {
  SD_JSON_TRY(o.Field("id", &f->id));
  std::string severity;
  SD_JSON_TRY(o.Field("severity", &severity));
  auto s = FindingSeverityFromName(severity);
  if (!s) return Bad(o.path().Key("severity"), fmt::format("unknown severity '{}'", severity));
  f->severity = *s;
  SD_JSON_TRY(o.Field("title", &f->title));
  SD_JSON_TRY(o.Field("share_pct", &f->share_pct));
  SD_JSON_TRY(o.Field("gain_upper_bound", &f->gain_upper_bound));
  SD_JSON_TRY(o.Field("gain", &f->gain_text));
  SD_JSON_TRY(ReadPrediction(o, &f->prediction));
  SD_JSON_TRY(o.Objects("evidence", &f->evidence, [](const Obj& e, EvidenceItem* item) -> Status {
    SD_JSON_TRY(e.Field("label", &item->label));
    return e.Field("value", &item->value);
  }));
  SD_JSON_TRY(o.Objects("top_events", &f->top_events, ReadTopEvent));
  SD_JSON_TRY(o.NamedNumbers("figures", &f->figures));
  return o.Nested("fix", [&](const Obj& x) -> Status {
    SD_JSON_TRY(x.Field("summary", &f->fix.summary));
    SD_JSON_TRY(x.Field("tensorflow", &f->fix.tensorflow));
    return x.Field("pytorch", &f->fix.pytorch);
  });
}

// Everything after schema_version, in RenderJson's order.
Status ReadReport(const Obj& o, Report* r) {
  SD_JSON_TRY(o.Field("tool_version", &r->tool_version));
  SD_JSON_TRY(o.Field("inputs", &r->inputs));
  SD_JSON_TRY(o.Field("format", &r->format));
  SD_JSON_TRY(o.Nested("verdict", [&](const Obj& v) -> Status {
    std::string name;
    SD_JSON_TRY(v.Field("bottleneck", &name));
    auto b = BottleneckFromName(name);
    if (!b) return Bad(v.path().Key("bottleneck"), fmt::format("unknown bottleneck '{}'", name));
    r->verdict.bottleneck = *b;
    return v.Field("summary", &r->verdict.summary);
  }));
  SD_JSON_TRY(o.Nested("coverage", [&](const Obj& c) { return ReadCoverage(c, &r->coverage); }));
  SD_JSON_TRY(o.Nested("steps", [&](const Obj& s) { return ReadSteps(s, &r->steps); }));
  SD_JSON_TRY(ReadBreakdown(o, &r->breakdown));
  std::vector<std::pair<std::string, double>> detail;
  SD_JSON_TRY(o.NamedNumbers("breakdown_detail", &detail));
  r->breakdown_detail.clear();
  for (auto& [category, pct] : detail) r->breakdown_detail.push_back({std::move(category), 0, pct});
  SD_JSON_TRY(o.Objects("devices", &r->devices, ReadDevice));
  SD_JSON_TRY(o.Objects("workers", &r->workers, ReadWorker));
  bool present = false;
  RankAlignmentSummary alignment;
  SD_JSON_TRY(o.NullOr("alignment", false, &present, [&](const Obj& a) { return ReadAlignment(a, &alignment); }));
  if (present) r->alignment = std::move(alignment);
  CollectiveBandwidthSummary bandwidth;  // added within version 4: a report written before lacks it
  SD_JSON_TRY(o.NullOr("collective_bandwidth", true, &present,
                       [&](const Obj& b) { return json_read::ReadCollectiveBandwidth(b, &bandwidth); }));
  if (present) r->collective_bandwidth = std::move(bandwidth);
  SD_JSON_TRY(o.Objects("tensorflow_view", &r->tensorflow_view, ReadTensorFlowView));
  SD_JSON_TRY(o.Objects("findings", &r->findings, ReadFinding));
  SD_JSON_TRY(o.Objects("top_kernels", &r->top_kernels, ReadTopEvent));
  SD_JSON_TRY(o.Objects("top_ops", &r->top_ops, ReadTopEvent));
  CriticalPathSummary path;
  SD_JSON_TRY(o.NullOr("critical_path", true, &present, [&](const Obj& c) { return ReadCriticalPath(c, &path); }));
  if (present) r->critical_path = std::move(path);
  KernelTables tables;
  SD_JSON_TRY(o.NullOr("kernel_tables", true, &present, [&](const Obj& k) { return ReadKernelTables(k, &tables); }));
  if (present) r->kernel_tables = std::move(tables);
  SD_JSON_TRY(o.Field("notes", &r->notes));
  return o.Field("diagnostics", &r->diagnostics);
}

}  // namespace

Result<Report> ReportFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (Status st = json_read::Parse(parser, json, &root); !st.ok()) return st;
  object top;
  if (root.get_object().get(top)) return Result<Report>(ErrorCode::kCorruptInput, "the report is not a JSON object");
  const Path at_root;
  const Obj o(top, at_root);
  int64_t version = 0;
  if (Status st = o.Field("schema_version", &version); !st.ok()) return st;
  if (version != kReportSchemaVersion)
    return Result<Report>(ErrorCode::kUnknownFormat,
                          fmt::format("report schema {}, this build reads {}", version, kReportSchemaVersion));
  Report r;
  r.schema_version = int(version);
  if (Status st = ReadReport(o, &r); !st.ok()) return st;
  return r;
}

}  // namespace stepdoctor
