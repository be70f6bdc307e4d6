// The TensorBoard profile plugin's analysis pages: `<host>.overview_page.pb` (OverviewPage) and
// `<host>.input_pipeline.pb` (InputPipelineAnalysisResult), what TensorFlow's profiler concluded
// from a profile. Read into Trace::tf_verdicts so a report can show TensorFlow's verdict beside
// stepdoctor's; they hold no events. Only the few fields needed are decoded, straight from the
// protobuf wire format (field numbers of tensorflow/core/profiler/protobuf/overview_page.proto and
// input_pipeline.proto); everything else is skipped. `<host>.tensorflow_stats.pb` (TfStatsDatabase,
// tf_stats.proto) gives the op statistics: the device's idle share and the op types with the most
// self time.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

enum class TfProfilerPageKind { kNone, kOverviewPage, kInputPipeline, kTfStats };

// Protobuf pages carry no magic bytes: the plugin's file name is what says which page it is.
TfProfilerPageKind TfProfilerPageKindOf(std::string_view path);

// Decodes one page's bytes. A page that is not protobuf wire format is kCorruptInput, naming `name`.
Result<TfProfilerVerdict> ParseTfProfilerPage(std::string_view bytes, TfProfilerPageKind kind, const std::string& name);

// The host a page is about: its file name up to the first of `markers` found ("10.240.1.50" of
// "10.240.1.50.overview_page.pb"), the whole name where none is.
std::string ProfilerPageHost(const std::string& name, std::initializer_list<std::string_view> markers);

// The plugin writes HTML into some statements: the text without its tags.
std::string StripProfilerMarkup(std::string_view s);

// Reads a page from `src` (its name decides the kind) and appends it to trace.tf_verdicts.
Status ImportTfProfilerPage(PeekableSource& src, Trace& trace);

}  // namespace stepdoctor
