// libFuzzer target: any bytes through format detection, the Chrome-trace importer (plain or
// gzip), the analysis and the renderers.
//   cmake -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSTEPDOCTOR_BUILD_FUZZ=ON
//   ninja -C build-fuzz chrome_json_fuzzer && build-fuzz/fuzz/chrome_json_fuzzer fuzz/seeds/chrome_json
#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return stepdoctor::fuzz::ImportAndDiagnose(data, size, "fuzz.json");
}
