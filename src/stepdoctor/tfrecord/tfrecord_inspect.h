// `tfrecord inspect`: what TFRecord files hold: records, sizes (a histogram), compression, and
// the tf.train.Example / SequenceExample schema (feature keys, types, list lengths seen).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/tfrecord/example_wire.h"
#include "stepdoctor/tfrecord/tfrecord_verify.h"

namespace stepdoctor::tfrecord {

// What one feature key looked like across the records that hold it.
struct FeatureSchema {
  FeatureType type = FeatureType::kNone;
  bool mixed_types = false;  // records disagree on the type (`type` is the first seen)
  bool sequence = false;     // a SequenceExample feature list (lengths are steps)
  uint64_t records = 0;      // records holding the key
  uint64_t min_len = UINT64_MAX, max_len = 0;      // values per record
  uint64_t min_bytes = UINT64_MAX, max_bytes = 0;  // bytes features: bytes per record
};

struct InspectResult {
  std::vector<VerifyResult> files;     // framing checks per file (records, problems, compression)
  uint64_t records = 0;                // records read (sound ones)
  uint64_t sampled = 0;                // records decoded for the schema (<= max_records)
  uint64_t examples = 0, sequence_examples = 0, not_examples = 0;
  uint64_t total_record_bytes = 0;
  uint64_t min_record_bytes = UINT64_MAX, max_record_bytes = 0;
  // size_histogram[i]: records of size in [2^(i-1), 2^i) bytes (i = 0: empty records).
  std::vector<uint64_t> size_histogram;
  std::map<std::string, FeatureSchema> schema;  // sorted by key
};

struct InspectOptions {
  uint64_t max_records = 0;  // decode at most this many records for the schema; 0: all
};

// Reads each file in order (sizes and framing always cover every record).
InspectResult InspectFiles(const std::vector<std::string>& paths, const InspectOptions& o);
// The same over one already-opened stream (tests, fuzzers); `compression` is recorded as given.
void InspectStream(ByteSource& src, Compression compression, const InspectOptions& o, InspectResult* r);

}  // namespace stepdoctor::tfrecord
