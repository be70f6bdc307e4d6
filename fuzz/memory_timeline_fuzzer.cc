// libFuzzer target: any bytes named like a PyTorch memory timeline (memory.raw.json) through
// format detection, the importer that claims them, the analysis and the renderers. See
// chrome_json_fuzzer.cc for how to build and run.
#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return stepdoctor::fuzz::ImportAndDiagnose(data, size, "memory.raw.json");
}
