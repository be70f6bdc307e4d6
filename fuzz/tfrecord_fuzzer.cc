// libFuzzer target: any bytes as a TFRecord file (plain, gzip or zlib, detected from the first
// bytes) through inspect, which runs the framing checks of verify and decodes every record as a
// tf.train.Example / SequenceExample; and the same bytes as one Example record. See
// chrome_json_fuzzer.cc for how to build and run.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stepdoctor/tfrecord/example_wire.h"
#include "stepdoctor/tfrecord/tfrecord_file.h"
#include "stepdoctor/tfrecord/tfrecord_inspect.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stepdoctor;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto opened = tfrecord::OpenTfRecord(MemorySource(bytes, "fuzz.tfrecord"));
  if (opened.ok()) {
    tfrecord::InspectResult r;
    tfrecord::InspectStream(*opened->source, opened->compression, {}, &r);
  }
  std::vector<tfrecord::FeatureSeen> seen;
  tfrecord::DecodeExample(bytes, &seen);
  return 0;
}
