// The one input surface every fuzz target drives: bytes in, a Trace (or an error) out, then a
// report and the scalars summary (`stepdoctor scalars`). Nothing may crash, hang, read out of
// bounds or overflow, whatever the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/scalars_to_summary.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/render/scalars_render.h"

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
  ImportResult imported;
  imported.trace = std::move(trace);
  (void)RenderScalarsText(ScalarsToSummary(imported), o);
  return 0;
}

}  // namespace stepdoctor::fuzz
