// The one input surface every fuzz target drives: bytes in, a Trace (or an error) out, then a
// report. Nothing may crash, hang or read out of bounds, whatever the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::fuzz {

inline int ImportAndDiagnose(const uint8_t* data, size_t size, const char* name) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto src = OpenMaybeCompressed(bytes, name);
  Trace trace;
  if (!ImportSource(*src, trace, {}).ok()) return 0;
  trace.Finalize();
  Report r = AnalyzeTrace(trace);
  RenderOptions o;
  (void)RenderText(r, o);
  (void)RenderJson(r, o);
  return 0;
}

}  // namespace stepdoctor::fuzz
