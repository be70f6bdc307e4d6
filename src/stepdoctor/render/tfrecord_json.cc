#include "stepdoctor/render/tfrecord_json.h"

#include <cstdint>

#include "stepdoctor/render/json_writer.h"

namespace stepdoctor {
namespace {

using namespace tfrecord;

// One file's framing: as verify reports it, and as inspect lists its files.
void File(JsonWriter& j, const VerifyResult& v) {
  j.BeginObject();
  j.Key("path").String(v.name);
  j.Key("ok").Bool(v.ok());
  j.Key("error");
  if (v.error.ok()) j.Null();
  else j.String(v.error.message());
  j.Key("compression").String(CompressionName(v.compression));
  j.Key("records").Int(int64_t(v.records));
  j.Key("bytes").Int(int64_t(v.bytes));
  j.Key("skipped_bytes").Int(int64_t(v.skipped_bytes));
  j.Key("problems").BeginArray();
  for (const auto& p : v.problems) {
    j.BeginObject();
    j.Key("offset").Int(int64_t(p.offset));
    j.Key("problem").String(ProblemName(p.problem));
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
}

}  // namespace

std::string RenderVerifyJson(const std::vector<VerifyResult>& files, double seconds, size_t passed_over) {
  uint64_t records = 0, bytes = 0, bad = 0;
  for (const auto& v : files) records += v.records, bytes += v.bytes, bad += !v.ok();
  JsonWriter j;
  j.BeginObject();
  j.Key("files").BeginArray();
  for (const auto& v : files) File(j, v);
  j.EndArray();
  j.Key("records").Int(int64_t(records));
  j.Key("bytes").Int(int64_t(bytes));
  j.Key("bad_files").Int(int64_t(bad));
  j.Key("seconds").Number(seconds, 3);
  j.Key("passed_over").Int(int64_t(passed_over));
  j.EndObject();
  return j.Take() + "\n";
}

std::string RenderInspectJson(const InspectResult& r, size_t passed_over) {
  JsonWriter j;
  j.BeginObject();
  j.Key("files").BeginArray();
  for (const auto& v : r.files) File(j, v);
  j.EndArray();
  j.Key("records").Int(int64_t(r.records));
  j.Key("record_bytes").Int(int64_t(r.total_record_bytes));
  j.Key("min_record_bytes").Int(r.records ? int64_t(r.min_record_bytes) : 0);
  j.Key("max_record_bytes").Int(int64_t(r.max_record_bytes));
  j.Key("size_histogram").BeginArray();
  for (size_t i = 0; i < r.size_histogram.size(); ++i) {
    if (r.size_histogram[i] == 0) continue;
    j.BeginObject();
    j.Key("min_bytes").Int(i == 0 ? 0 : int64_t(1) << (i - 1));
    j.Key("below_bytes").Int(i == 0 ? 1 : int64_t(1) << i);
    j.Key("records").Int(int64_t(r.size_histogram[i]));
    j.EndObject();
  }
  j.EndArray();
  j.Key("decoded").Int(int64_t(r.sampled));
  j.Key("examples").Int(int64_t(r.examples));
  j.Key("sequence_examples").Int(int64_t(r.sequence_examples));
  j.Key("not_examples").Int(int64_t(r.not_examples));
  j.Key("schema").BeginArray();
  for (const auto& [key, s] : r.schema) {
    j.BeginObject();
    j.Key("feature").String(key);
    j.Key("type").String(FeatureTypeName(s.type));
    j.Key("mixed_types").Bool(s.mixed_types);
    j.Key("sequence").Bool(s.sequence);
    j.Key("records").Int(int64_t(s.records));
    j.Key("min_values").Int(int64_t(s.min_len));
    j.Key("max_values").Int(int64_t(s.max_len));
    j.Key("min_bytes");
    if (s.type == FeatureType::kBytes) j.Int(int64_t(s.min_bytes));
    else j.Null();
    j.Key("max_bytes");
    if (s.type == FeatureType::kBytes) j.Int(int64_t(s.max_bytes));
    else j.Null();
    j.EndObject();
  }
  j.EndArray();
  j.Key("passed_over").Int(int64_t(passed_over));
  j.EndObject();
  return j.Take() + "\n";
}

}  // namespace stepdoctor
