// libFuzzer target: any bytes through format detection (named like fuzz.xplane.pb, since protobuf and
// text formats have no magic number), the importer that claims them, the analysis and the
// renderers. See chrome_json_fuzzer.cc for how to build and run.
#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return stepdoctor::fuzz::ImportAndDiagnose(data, size, "fuzz.xplane.pb");
}
