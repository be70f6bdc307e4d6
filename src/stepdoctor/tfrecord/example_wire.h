// tf.train.Example and SequenceExample in the protobuf wire format, read and written directly
// (no generated code): the fields are few and fixed, and decoding must tell "not an Example"
// apart from a damaged one without a schema.
//   Example        { Features features = 1; }
//   SequenceExample{ Features context = 1; FeatureLists feature_lists = 2; }
//   Features       { map<string, Feature> feature = 1; }       map entry: key = 1, value = 2
//   FeatureLists   { map<string, FeatureList> feature_list = 1; }
//   FeatureList    { repeated Feature feature = 1; }
//   Feature        { oneof { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList      { repeated bytes value = 1; }
//   FloatList      { repeated float value = 1 [packed]; }   Int64List { repeated int64 value = 1 [packed]; }
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepdoctor::tfrecord {

enum class FeatureType { kNone, kBytes, kFloat, kInt64 };
const char* FeatureTypeName(FeatureType t);  // "none", "bytes", "float", "int64"

// One feature as seen in one record: its type, how many values, and for bytes their total size.
struct FeatureSeen {
  std::string_view key;    // into the record
  FeatureType type = FeatureType::kNone;
  uint64_t values = 0;     // list length
  uint64_t bytes = 0;      // bytes_list: total bytes of the values
  bool sequence = false;   // a SequenceExample feature list (values = steps)
};

enum class ExampleKind { kExample, kSequenceExample, kNotExample };

// Decodes `record` as an Example or SequenceExample into the features it holds (for a
// SequenceExample: context features, then one entry per feature list with its step count).
// kNotExample when the bytes do not parse as either (wrong wire types, a length past the end).
ExampleKind DecodeExample(std::string_view record, std::vector<FeatureSeen>* features);

// The bytes and int64 values of a decoded-by-key feature, for tests and round trips.
bool FindBytesFeature(std::string_view record, std::string_view key, std::string* value);
bool FindInt64Feature(std::string_view record, std::string_view key, int64_t* value);

// Builds an Example with packed repeated values, as TensorFlow's serializer writes it.
// Keys and bytes values are kept as views: they must outlive Take(), which writes the message
// in one pass (each value copied once, however large).
class ExampleBuilder {
 public:
  ExampleBuilder& Bytes(std::string_view key, std::string_view value);
  ExampleBuilder& Int64(std::string_view key, int64_t value);
  ExampleBuilder& Floats(std::string_view key, const std::vector<float>& values);
  // The serialized Example; the builder is empty afterwards.
  std::string Take();

 private:
  struct Entry {
    std::string_view key;
    uint32_t list_field;   // Feature field: 1 bytes_list, 2 float_list, 3 int64_list
    std::string_view bytes;  // bytes_list: the value
    std::string packed;      // float_list, int64_list: the packed values
  };
  std::vector<Entry> entries_;
};

}  // namespace stepdoctor::tfrecord
