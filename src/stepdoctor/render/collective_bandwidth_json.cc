#include "stepdoctor/render/collective_bandwidth_json.h"

namespace stepdoctor {
namespace {

void OptionalNumber(JsonWriter& j, const char* key, const std::optional<double>& v, int decimals = 3) {
  j.Key(key);
  if (v) j.Number(*v, decimals);
  else j.Null();
}

void OptionalInt(JsonWriter& j, const char* key, const std::optional<int64_t>& v) {
  j.Key(key);
  if (v) j.Int(*v);
  else j.Null();
}

}  // namespace

void WriteCollectiveBandwidth(JsonWriter& j, const CollectiveBandwidthSummary& bw) {
  j.BeginObject();
  j.Key("note").String(bw.note);
  j.Key("links").BeginArray();
  for (const auto& l : bw.links) {
    j.BeginObject();
    j.Key("kind").String(l.kind);
    j.Key("name").String(l.name);
    OptionalNumber(j, "peak_gbps", l.peak_gbps);
    j.Key("basis").String(l.basis);
    j.EndObject();
  }
  j.EndArray();
  j.Key("rows").BeginArray();
  for (const auto& r : bw.rows) {
    j.BeginObject();
    j.Key("kind").String(r.kind);
    j.Key("group_size").Int(r.group_size);
    j.Key("size_bucket").String(r.size_bucket);
    j.Key("min_bytes").Int(r.min_bytes);
    OptionalInt(j, "below_bytes", r.below_bytes);
    j.Key("calls").Int(r.calls);
    j.Key("bytes").Number(r.bytes, 0);
    j.Key("mean_bytes").Number(r.mean_bytes, 1);
    j.Key("kernel_ms").Number(r.kernel_ms);
    j.Key("mean_ms").Number(r.mean_ms, 4);
    j.Key("algbw_gbps").Number(r.algbw_gbps);
    OptionalNumber(j, "busbw_gbps", r.busbw_gbps);
    j.Key("includes_waits").Bool(r.includes_waits);
    OptionalInt(j, "transfer_calls", r.transfer_calls);
    OptionalNumber(j, "transfer_mean_ms", r.transfer_mean_ms, 4);
    OptionalNumber(j, "transfer_algbw_gbps", r.transfer_algbw_gbps);
    OptionalNumber(j, "transfer_busbw_gbps", r.transfer_busbw_gbps);
    j.Key("link").Int(r.link);
    OptionalNumber(j, "busbw_of_peak_pct", r.busbw_of_peak_pct, 2);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
}

namespace json_read {

Status ReadCollectiveBandwidth(const Obj& o, CollectiveBandwidthSummary* bw) {
  SD_JSON_TRY(o.Field("note", &bw->note));
  SD_JSON_TRY(o.Objects("links", &bw->links, [](const Obj& l, CollectiveLinkInfo* link) -> Status {
    SD_JSON_TRY(l.Field("kind", &link->kind));
    SD_JSON_TRY(l.Field("name", &link->name));
    SD_JSON_TRY(l.Field("peak_gbps", &link->peak_gbps));
    return l.Field("basis", &link->basis);
  }));
  return o.Objects("rows", &bw->rows, [](const Obj& x, CollectiveBandwidthRow* r) -> Status {
    SD_JSON_TRY(x.Field("kind", &r->kind));
    SD_JSON_TRY(x.Field("group_size", &r->group_size));
    SD_JSON_TRY(x.Field("size_bucket", &r->size_bucket));
    SD_JSON_TRY(x.Field("min_bytes", &r->min_bytes));
    SD_JSON_TRY(x.Field("below_bytes", &r->below_bytes));
    SD_JSON_TRY(x.Field("calls", &r->calls));
    SD_JSON_TRY(x.Field("bytes", &r->bytes));
    SD_JSON_TRY(x.Field("mean_bytes", &r->mean_bytes));
    SD_JSON_TRY(x.Field("kernel_ms", &r->kernel_ms));
    SD_JSON_TRY(x.Field("mean_ms", &r->mean_ms));
    SD_JSON_TRY(x.Field("algbw_gbps", &r->algbw_gbps));
    SD_JSON_TRY(x.Field("busbw_gbps", &r->busbw_gbps));
    SD_JSON_TRY(x.Field("includes_waits", &r->includes_waits));
    SD_JSON_TRY(x.Field("transfer_calls", &r->transfer_calls));
    SD_JSON_TRY(x.Field("transfer_mean_ms", &r->transfer_mean_ms));
    SD_JSON_TRY(x.Field("transfer_algbw_gbps", &r->transfer_algbw_gbps));
    SD_JSON_TRY(x.Field("transfer_busbw_gbps", &r->transfer_busbw_gbps));
    SD_JSON_TRY(x.Field("link", &r->link));
    return x.Field("busbw_of_peak_pct", &r->busbw_of_peak_pct);
  });
}

}  // namespace json_read
}  // namespace stepdoctor
