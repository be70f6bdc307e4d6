// Writes TensorBoard event files in memory for tests: TFRecord framing around Event protos.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "stepdoctor/importers/tfevents/crc32c.h"
#include "stepdoctor/proto/tb_event.pb.h"

namespace stepdoctor::testing {

// One TFRecord: length, masked CRC of the length, data, masked CRC of the data.
inline std::string FrameRecord(const std::string& data) {
  std::string out(12, '\0');
  uint64_t len = data.size();
  std::memcpy(out.data(), &len, 8);
  uint32_t c = tfevents::MaskCrc(tfevents::Crc32c(std::string_view(out.data(), 8)));
  std::memcpy(out.data() + 8, &c, 4);
  out += data;
  c = tfevents::MaskCrc(tfevents::Crc32c(data));
  out.append(reinterpret_cast<const char*>(&c), 4);
  return out;
}

class EventFileWriter {
 public:
  EventFileWriter() {
    tb::Event e;
    e.set_wall_time(1.0e9);
    e.set_file_version("brain.Event:2");
    Append(e);
  }
  // A TF1 scalar (simple_value).
  EventFileWriter& Scalar(const std::string& tag, int64_t step, double wall, float value) {
    tb::Event e;
    e.set_wall_time(wall);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
    return Append(e);
  }
  // A TF2 scalar: a rank-0 float tensor; the plugin metadata rides on the first value of a tag.
  EventFileWriter& TensorScalar(const std::string& tag, int64_t step, double wall, float value, bool metadata) {
    tb::Event e;
    e.set_wall_time(wall);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    if (metadata) v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
    v->mutable_tensor()->set_dtype(tb::DT_FLOAT);
    v->mutable_tensor()->set_tensor_content(std::string(reinterpret_cast<const char*>(&value), 4));
    return Append(e);
  }
  EventFileWriter& Histogram(const std::string& tag, int64_t step, double wall) {
    tb::Event e;
    e.set_wall_time(wall);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->mutable_histo()->set_num(3);
    return Append(e);
  }
  EventFileWriter& Append(const tb::Event& e) {
    bytes_ += FrameRecord(e.SerializeAsString());
    return *this;
  }
  EventFileWriter& Raw(const std::string& b) {
    bytes_ += b;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace stepdoctor::testing
