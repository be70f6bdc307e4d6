// Writes TensorBoard event files in memory for tests: TFRecord framing around Event protos.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// Writes `bytes` as LOGDIR/RUN/events.out.tfevents.<n>.test, making the folders.
inline void WriteEventFile(const std::string& logdir, const std::string& run, const std::string& bytes) {
  std::filesystem::path dir = std::filesystem::path(logdir) / run;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "events.out.tfevents.1700000000.test", std::ios::binary) << bytes;
}

// A small training logdir whose figures are known by construction:
//   train: steps 0-19, 0.5 s per step, plus a 10 s pause before steps 5, 10 and 15 (a checkpoint
//          every 5 steps); `loss` = 2 * 0.9^step (falling), `accuracy` = 0.5 + 0.02 * step (rising).
//   validation: `loss` at steps 0 and 10 only (too few points for a trend).
inline void WriteTrainingLogdir(const std::string& logdir) {
  EventFileWriter train;
  double wall = 1.7e9;
  for (int step = 0; step < 20; ++step) {
    if (step > 0) wall += (step % 5 == 0) ? 10.5 : 0.5;
    train.Scalar("loss", step, wall, static_cast<float>(2.0 * std::pow(0.9, step)));
    train.TensorScalar("accuracy", step, wall, static_cast<float>(0.5 + 0.02 * step), step == 0);
  }
  WriteEventFile(logdir, "train", train.bytes());
  EventFileWriter validation;
  validation.Scalar("loss", 0, 1.7e9 + 1, 2.1f).Scalar("loss", 10, 1.7e9 + 21, 0.8f);
  WriteEventFile(logdir, "validation", validation.bytes());
}

}  // namespace stepdoctor::testing
