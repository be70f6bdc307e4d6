#include "stepdoctor/render/kernel_views_json.h"

namespace stepdoctor {
namespace {

void Segments(JsonWriter& j, const std::vector<PathSegment>& segs) {
  j.BeginArray();
  for (const auto& s : segs) {
    j.BeginObject();
    j.Key("start_ms").Number(s.start_ms, 4);
    j.Key("dur_ms").Number(s.dur_ms, 4);
    j.Key("kind").String(PathKindName(s.kind));
    j.Key("name").String(s.name);
    j.Key("parts").Int(s.parts);
    j.Key("stream");
    if (s.stream >= 0) j.Int(s.stream);
    else j.Null();
    j.EndObject();
  }
  j.EndArray();
}

void Step(JsonWriter& j, const StepCriticalPath& p, bool segments) {
  j.BeginObject();
  j.Key("step").Int(p.step);
  j.Key("start_ms").Number(p.start_ms, 4);
  j.Key("step_ms").Number(p.step_ms, 4);
  j.Key("path_ms").Number(p.path_ms, 4);
  for (int k = 0; k < kPathKindCount; ++k) j.Key(std::string(PathKindName(PathKind(k))) + "_ms").Number(p.kind_ms[k], 4);
  j.Key("top").BeginArray();
  for (const auto& c : p.top) {
    j.BeginObject();
    j.Key("name").String(c.name);
    j.Key("kind").String(PathKindName(c.kind));
    j.Key("ms").Number(c.ms, 4);
    j.Key("count").Int(c.count);
    j.EndObject();
  }
  j.EndArray();
  if (segments) {
    j.Key("segments");
    Segments(j, p.segments);
  }
  j.EndObject();
}

}  // namespace

void WriteCriticalPathSteps(JsonWriter& j, const CriticalPathSummary& c) {
  j.BeginArray();
  for (const auto& p : c.steps) Step(j, p, true);
  j.EndArray();
}

void WriteCriticalPath(JsonWriter& j, const CriticalPathSummary& c) {
  j.BeginObject();
  j.Key("median_step");
  if (c.median_index >= 0) j.Int(c.steps[size_t(c.median_index)].step);
  else j.Null();
  j.Key("steps").BeginArray();
  for (const auto& p : c.steps) Step(j, p, false);
  j.EndArray();
  j.Key("median_segments");
  Segments(j, c.median_index >= 0 ? c.steps[size_t(c.median_index)].segments : std::vector<PathSegment>{});
  j.EndObject();
}

void WriteKernelTables(JsonWriter& j, const KernelTables& k) {
  j.BeginObject();
  j.Key("ops").BeginArray();
  for (const auto& o : k.ops) {
    j.BeginObject();
    j.Key("op").String(o.op);
    j.Key("op_count").Int(o.op_count);
    j.Key("kernels").Int(o.kernels);
    j.Key("device_ms").Number(o.device_ms, 4);
    j.Key("mean_delay_us").Number(o.mean_delay_us, 2);
    j.Key("rows").BeginArray();
    for (const auto& r : o.rows) {
      j.BeginObject();
      j.Key("kernel").String(r.kernel);
      j.Key("count").Int(r.count);
      j.Key("device_ms").Number(r.device_ms, 4);
      j.Key("mean_delay_us").Number(r.mean_delay_us, 2);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("launch_delays").Int(k.delays);
  j.Key("median_delay_us").Number(k.median_delay_us, 2);
  j.Key("median_queued_us").Number(k.median_queued_us, 2);
  j.Key("unenclosed_ms").Number(k.unenclosed_ms, 3);
  j.Key("device_ms").Number(k.device_ms, 3);
  j.Key("outlier_threshold_us").Number(k.outlier_threshold_us, 2);
  j.Key("outlier_count").Int(k.outlier_count);
  j.Key("outliers").BeginArray();
  for (const auto& o : k.outliers) {
    j.BeginObject();
    j.Key("kernel").String(o.kernel);
    j.Key("launch").String(o.launch);
    j.Key("delay_us").Number(o.delay_us, 2);
    j.Key("at_ms").Number(o.at_ms, 4);
    j.EndObject();
  }
  j.EndArray();
  j.Key("classes").BeginArray();
  for (const auto& c : k.classes) {
    j.BeginObject();
    j.Key("work_class").String(c.work_class);
    j.Key("count").Int(c.count);
    j.Key("total_ms").Number(c.total_ms, 4);
    j.Key("mean_us").Number(c.mean_us, 2);
    j.Key("min_us").Number(c.min_us, 2);
    j.Key("max_us").Number(c.max_us, 2);
    j.EndObject();
  }
  j.EndArray();
  j.Key("queues").BeginArray();
  for (const auto& q : k.queues) {
    j.BeginObject();
    j.Key("stream").String(q.stream);
    j.Key("max_queued").Int(q.max_queued);
    j.Key("mean_queued").Number(q.mean_queued, 2);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
}

}  // namespace stepdoctor
