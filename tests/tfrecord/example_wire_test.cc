// tf.train.Example in the wire format, checked against the spec byte for byte:
// Example.features = 1, Features.feature (map) = 1 with entries key = 1 / value = 2,
// Feature bytes_list = 1 / float_list = 2 / int64_list = 3, repeated numbers packed.
#include "stepdoctor/tfrecord/example_wire.h"

#include <gtest/gtest.h>

#include "stepdoctor/proto/tb_event.pb.h"

namespace stepdoctor::tfrecord {
namespace {

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

TEST(ExampleWire, Int64FeatureIsPackedUnderFieldThree) {
  std::string e = ExampleBuilder().Int64("label", 3).Take();
  // 0a10 Example.features { 0a0e feature entry { 0a05 "label"  1205 value { 1a03 int64_list { 0a01 03 } } } }
  EXPECT_EQ(Hex(e), "0a10" "0a0e" "0a05" "6c6162656c" "1205" "1a03" "0a0103");
}

TEST(ExampleWire, BytesFeatureIsUnderFieldOne) {
  std::string e = ExampleBuilder().Bytes("data", "ab").Take();
  EXPECT_EQ(Hex(e), "0a10" "0a0e" "0a04" "64617461" "1206" "0a04" "0a026162");
}

TEST(ExampleWire, FloatFeatureIsPackedLittleEndianUnderFieldTwo) {
  std::string e = ExampleBuilder().Floats("f", {1.0f}).Take();
  EXPECT_EQ(Hex(e), "0a0f" "0a0d" "0a0166" "1208" "1206" "0a040000803f");
}

TEST(ExampleWire, NegativeInt64TakesTenBytes) {
  std::string e = ExampleBuilder().Int64("l", -1).Take();
  int64_t v = 0;
  ASSERT_TRUE(FindInt64Feature(e, "l", &v));
  EXPECT_EQ(v, -1);
  EXPECT_NE(Hex(e).find("0a0affffffffffffffffff01"), std::string::npos) << Hex(e);
}

TEST(ExampleWire, DecodesWhatItBuilds) {
  std::string e = ExampleBuilder().Bytes("data", "xyz").Int64("label", 7).Floats("v", {1, 2, 3}).Take();
  std::vector<FeatureSeen> seen;
  ASSERT_EQ(DecodeExample(e, &seen), ExampleKind::kExample);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].key, "data");
  EXPECT_EQ(seen[0].type, FeatureType::kBytes);
  EXPECT_EQ(seen[0].values, 1u);
  EXPECT_EQ(seen[0].bytes, 3u);
  EXPECT_EQ(seen[1].type, FeatureType::kInt64);
  EXPECT_EQ(seen[2].type, FeatureType::kFloat);
  EXPECT_EQ(seen[2].values, 3u);
  std::string data;
  ASSERT_TRUE(FindBytesFeature(e, "data", &data));
  EXPECT_EQ(data, "xyz");
}

TEST(ExampleWire, AcceptsUnpackedNumbersAsOlderWritersEmit) {
  // int64_list { value: 5 value: 6 } unpacked (wire type 0), float_list { value: 1.0 } unpacked (wire type 5).
  std::string ints = "\x08\x05\x08\x06";                      // Int64List body
  std::string floats = std::string("\x0d\x00\x00\x80\x3f", 5);  // FloatList body
  auto feature = [](char field, const std::string& list) { return std::string(1, char(field << 3 | 2)) + char(list.size()) + list; };
  auto entry = [](const std::string& key, const std::string& f) {
    std::string body = "\x0a" + std::string(1, char(key.size())) + key + "\x12" + std::string(1, char(f.size())) + f;
    return "\x0a" + std::string(1, char(body.size())) + body;
  };
  std::string features = entry("i", feature(3, ints)) + entry("f", feature(2, floats));
  std::string e = "\x0a" + std::string(1, char(features.size())) + features;
  std::vector<FeatureSeen> seen;
  ASSERT_EQ(DecodeExample(e, &seen), ExampleKind::kExample);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].type, FeatureType::kInt64);
  EXPECT_EQ(seen[0].values, 2u);
  EXPECT_EQ(seen[1].type, FeatureType::kFloat);
  EXPECT_EQ(seen[1].values, 1u);
  int64_t v = 0;
  ASSERT_TRUE(FindInt64Feature(e, "i", &v));
  EXPECT_EQ(v, 5);
}

TEST(ExampleWire, SequenceExampleFeatureListsCountSteps) {
  // SequenceExample { context = 1: Features; feature_lists = 2: { feature_list = 1: map<string, FeatureList> } }
  std::string step = ExampleBuilder().Int64("x", 1).Take();
  // The Feature body inside the built Example: skip Example/Features/entry framing by building it directly.
  std::string int_feature = "\x1a\x03\x0a\x01\x01";               // Feature { int64_list { 1 } }
  std::string flist;                                               // FeatureList { feature x3 }
  for (int i = 0; i < 3; ++i) flist += "\x0a" + std::string(1, char(int_feature.size())) + int_feature;
  std::string entry_body = "\x0a\x01t\x12" + std::string(1, char(flist.size())) + flist;
  std::string lists = "\x0a" + std::string(1, char(entry_body.size())) + entry_body;
  std::string context = step.substr(2);  // the Features body of a one-feature Example
  std::string se = "\x0a" + std::string(1, char(context.size())) + context + "\x12" + std::string(1, char(lists.size())) + lists;
  std::vector<FeatureSeen> seen;
  ASSERT_EQ(DecodeExample(se, &seen), ExampleKind::kSequenceExample);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].key, "x");
  EXPECT_FALSE(seen[0].sequence);
  EXPECT_EQ(seen[1].key, "t");
  EXPECT_TRUE(seen[1].sequence);
  EXPECT_EQ(seen[1].type, FeatureType::kInt64);
  EXPECT_EQ(seen[1].values, 3u);
}

TEST(ExampleWire, OtherMessagesAreNotExamples) {
  tb::Event ev;  // what event files hold: field 1 is a double (wire type 1)
  ev.set_wall_time(1.5e9);
  ev.set_step(3);
  std::vector<FeatureSeen> seen;
  EXPECT_EQ(DecodeExample(ev.SerializeAsString(), &seen), ExampleKind::kNotExample);
  EXPECT_EQ(DecodeExample("\x0a\x7f" "abc", &seen), ExampleKind::kNotExample);  // length past the end
  EXPECT_EQ(DecodeExample("plain text, not protobuf", &seen), ExampleKind::kNotExample);
  EXPECT_EQ(DecodeExample("", &seen), ExampleKind::kExample);  // an empty Example is valid protobuf
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace stepdoctor::tfrecord
