#include "stepdoctor/render/kernel_views_json_read.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

namespace stepdoctor::json_read {
namespace {

Status ReadPathKind(const Obj& o, PathKind* out) {
  std::string name;
  SD_JSON_TRY(o.Field("kind", &name));
  auto k = PathKindFromName(name);
  if (!k) return Bad(o.path().Key("kind"), fmt::format("unknown path kind '{}'", name));
  *out = *k;
  return {};
}

Status ReadSegment(const Obj& o, PathSegment* s) {
  SD_JSON_TRY(o.Field("start_ms", &s->start_ms));
  SD_JSON_TRY(o.Field("dur_ms", &s->dur_ms));
  SD_JSON_TRY(ReadPathKind(o, &s->kind));
  SD_JSON_TRY(o.Field("name", &s->name));
  SD_JSON_TRY(o.Field("parts", &s->parts));
  element stream;
  SD_JSON_TRY(o.Get("stream", &stream));
  s->stream = -1;
  return stream.is_null() ? Status() : Read(stream, o.path().Key("stream"), &s->stream);
}

Status ReadStepPath(const Obj& o, StepCriticalPath* p) {
  SD_JSON_TRY(o.Field("step", &p->step));
  SD_JSON_TRY(o.Field("start_ms", &p->start_ms));
  SD_JSON_TRY(o.Field("step_ms", &p->step_ms));
  SD_JSON_TRY(o.Field("path_ms", &p->path_ms));
  for (int k = 0; k < kPathKindCount; ++k) {
    const std::string key = std::string(PathKindName(PathKind(k))) + "_ms";
    SD_JSON_TRY(o.Field(key, &p->kind_ms[size_t(k)]));
  }
  return o.Objects("top", &p->top, [](const Obj& c, PathContributor* t) -> Status {
    SD_JSON_TRY(c.Field("name", &t->name));
    SD_JSON_TRY(ReadPathKind(c, &t->kind));
    SD_JSON_TRY(c.Field("ms", &t->ms));
    return c.Field("count", &t->count);
  });
}

}  // namespace

// The median step is written by its number: it is the first step of that number.
Status ReadCriticalPath(const Obj& o, CriticalPathSummary* c) {
  SD_JSON_TRY(o.Objects("steps", &c->steps, ReadStepPath));
  std::vector<PathSegment> segments;
  SD_JSON_TRY(o.Objects("median_segments", &segments, ReadSegment));
  element median;
  SD_JSON_TRY(o.Get("median_step", &median));
  c->median_index = -1;
  if (median.is_null()) {
    if (!segments.empty()) return Bad(o.path().Key("median_segments"), "segments without a median_step");
    return {};
  }
  int64_t number = 0;
  SD_JSON_TRY(Read(median, o.path().Key("median_step"), &number));
  for (size_t i = 0; i < c->steps.size() && c->median_index < 0; ++i)
    if (c->steps[i].step == number) c->median_index = int(i);
  if (c->median_index < 0) return Bad(o.path().Key("median_step"), fmt::format("no step {} in steps", number));
  c->steps[size_t(c->median_index)].segments = std::move(segments);
  return {};
}

Status ReadKernelTables(const Obj& o, KernelTables* k) {
  SD_JSON_TRY(o.Objects("ops", &k->ops, [](const Obj& x, OpKernels* op) -> Status {
    SD_JSON_TRY(x.Field("op", &op->op));
    SD_JSON_TRY(x.Field("op_count", &op->op_count));
    SD_JSON_TRY(x.Field("kernels", &op->kernels));
    SD_JSON_TRY(x.Field("device_ms", &op->device_ms));
    SD_JSON_TRY(x.Field("mean_delay_us", &op->mean_delay_us));
    return x.Objects("rows", &op->rows, [](const Obj& r, OpKernelRow* row) -> Status {
      SD_JSON_TRY(r.Field("kernel", &row->kernel));
      SD_JSON_TRY(r.Field("count", &row->count));
      SD_JSON_TRY(r.Field("device_ms", &row->device_ms));
      return r.Field("mean_delay_us", &row->mean_delay_us);
    });
  }));
  SD_JSON_TRY(o.Field("launch_delays", &k->delays));
  SD_JSON_TRY(o.Field("median_delay_us", &k->median_delay_us));
  // Read where present: reports written before these fields read them as 0.
  if (o.Has("median_queued_us")) SD_JSON_TRY(o.Field("median_queued_us", &k->median_queued_us));
  if (o.Has("unenclosed_ms")) SD_JSON_TRY(o.Field("unenclosed_ms", &k->unenclosed_ms));
  if (o.Has("device_ms")) SD_JSON_TRY(o.Field("device_ms", &k->device_ms));
  SD_JSON_TRY(o.Field("outlier_threshold_us", &k->outlier_threshold_us));
  SD_JSON_TRY(o.Field("outlier_count", &k->outlier_count));
  SD_JSON_TRY(o.Objects("outliers", &k->outliers, [](const Obj& x, LaunchDelayOutlier* d) -> Status {
    SD_JSON_TRY(x.Field("kernel", &d->kernel));
    SD_JSON_TRY(x.Field("launch", &d->launch));
    SD_JSON_TRY(x.Field("delay_us", &d->delay_us));
    return x.Field("at_ms", &d->at_ms);
  }));
  SD_JSON_TRY(o.Objects("classes", &k->classes, [](const Obj& x, KernelClassStats* c) -> Status {
    SD_JSON_TRY(x.Field("work_class", &c->work_class));
    SD_JSON_TRY(x.Field("count", &c->count));
    SD_JSON_TRY(x.Field("total_ms", &c->total_ms));
    SD_JSON_TRY(x.Field("mean_us", &c->mean_us));
    SD_JSON_TRY(x.Field("min_us", &c->min_us));
    return x.Field("max_us", &c->max_us);
  }));
  return o.Objects("queues", &k->queues, [](const Obj& x, StreamQueue* q) -> Status {
    SD_JSON_TRY(x.Field("stream", &q->stream));
    SD_JSON_TRY(x.Field("max_queued", &q->max_queued));
    return x.Field("mean_queued", &q->mean_queued);
  });
}

}  // namespace stepdoctor::json_read
