// libFuzzer target: any bytes through ReportFromJson (the JSON report read back,
// render/json_read). A report it accepts must render JSON that reads back and renders the same;
// anything else aborts, so libFuzzer keeps the input. See chrome_json_fuzzer.cc for how to build
// and run; seeds in fuzz/seeds/report_json.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "stepdoctor/render/json_read.h"
#include "stepdoctor/render/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = stepdoctor::ReportFromJson(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!r.ok()) return 0;
  const std::string json = stepdoctor::RenderJson(*r, {});
  auto back = stepdoctor::ReportFromJson(json);
  if (!back.ok() || stepdoctor::RenderJson(*back, {}) != json) std::abort();
  return 0;
}
