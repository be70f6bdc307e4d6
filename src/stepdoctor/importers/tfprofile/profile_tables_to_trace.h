// The profile plugin's analysis pages in their JSON form: an array of google-chart DataTables
// ({"cols", "rows", "p"}), what older TensorBoard versions served and saved
// (`<host>.overview_page.json`, `<host>.input_pipeline.json`) and what xprof's converters write
// (`..._overview_page_....json.gz`, `..._input_pipeline_analyzer_....json.gz`). The same verdict
// as the protobuf pages (profile_pages_to_trace.h) is read from them into Trace::tf_verdicts:
// the recommendation, the per-step table and its averages, the device the run environment names.
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// Which page a JSON-form file is, from its name (kNone: not one of the two read).
TfProfilerPageKind TfProfilerTablesKindOf(std::string_view path);

// Decodes one page's JSON. Not an array of DataTables is kUnknownFormat, naming `name`; JSON that
// does not parse is kCorruptInput.
Result<TfProfilerVerdict> ParseTfProfilerTables(std::string_view json, TfProfilerPageKind kind, const std::string& name);

// Reads a page from `src` and appends it to trace.tf_verdicts. The framework is JAX where the
// page's top operations are jit-compiled functions, TensorFlow where they are other ops, unknown
// where the page lists none (both frameworks' profilers write these pages).
Status ImportTfProfilerTables(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
