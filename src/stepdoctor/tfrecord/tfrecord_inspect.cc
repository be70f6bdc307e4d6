#include "stepdoctor/tfrecord/tfrecord_inspect.h"

#include <algorithm>
#include <bit>

namespace stepdoctor::tfrecord {

namespace {

void AddRecord(std::string_view rec, const InspectOptions& o, InspectResult* r, std::vector<FeatureSeen>* seen) {
  ++r->records;
  r->total_record_bytes += rec.size();
  r->min_record_bytes = std::min<uint64_t>(r->min_record_bytes, rec.size());
  r->max_record_bytes = std::max<uint64_t>(r->max_record_bytes, rec.size());
  size_t bucket = std::bit_width(rec.size());
  if (r->size_histogram.size() <= bucket) r->size_histogram.resize(bucket + 1);
  ++r->size_histogram[bucket];
  if (o.max_records != 0 && r->sampled >= o.max_records) return;
  ++r->sampled;
  ExampleKind kind = DecodeExample(rec, seen);
  if (kind == ExampleKind::kNotExample) {
    ++r->not_examples;
    return;
  }
  ++(kind == ExampleKind::kExample ? r->examples : r->sequence_examples);
  for (const FeatureSeen& f : *seen) {
    FeatureSchema& s = r->schema[std::string(f.key)];
    if (s.records == 0) {
      s.type = f.type;
      s.sequence = f.sequence;
    } else if (s.type != f.type) {
      s.mixed_types = true;
    }
    ++s.records;
    s.min_len = std::min(s.min_len, f.values);
    s.max_len = std::max(s.max_len, f.values);
    if (f.type == FeatureType::kBytes) {
      s.min_bytes = std::min(s.min_bytes, f.bytes);
      s.max_bytes = std::max(s.max_bytes, f.bytes);
    }
  }
}

}  // namespace

void InspectStream(ByteSource& src, Compression compression, const InspectOptions& o, InspectResult* r) {
  std::vector<FeatureSeen> seen;
  VerifyResult v = VerifyStream(src, [&](std::string_view rec) { AddRecord(rec, o, r, &seen); });
  v.compression = compression;
  r->files.push_back(std::move(v));
}

InspectResult InspectFiles(const std::vector<std::string>& paths, const InspectOptions& o) {
  InspectResult r;
  for (const auto& path : paths) {
    auto opened = OpenTfRecordFile(path);
    if (!opened.ok()) {
      VerifyResult v;
      v.name = path;
      v.error = opened.status();
      r.files.push_back(std::move(v));
      continue;
    }
    InspectStream(*opened->source, opened->compression, o, &r);
    r.files.back().name = path;
  }
  return r;
}

}  // namespace stepdoctor::tfrecord
