// The table of formats stepdoctor reads and the importer of each.
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/memory_timeline/memory_timeline_to_trace.h"
#include "stepdoctor/importers/samples/nvidia_smi_csv_to_trace.h"
#include "stepdoctor/importers/samples/nvidia_smi_dmon_to_trace.h"
#include "stepdoctor/importers/samples/tegrastats_to_trace.h"
#include "stepdoctor/importers/samples/nvidia_smi_table_to_trace.h"
#include "stepdoctor/importers/samples/samples_to_trace.h"
#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"
#include "stepdoctor/importers/xplane/xspace_to_trace.h"

namespace stepdoctor {
namespace {

Status ImportChrome(PeekableSource& src, Trace& trace, const ImportOptions& opts) {
  std::function<void(uint64_t, uint64_t)> progress;
  if (opts.progress) progress = [&](uint64_t done, uint64_t total) { opts.progress(src.name(), done, total); };
  return ImportChromeJson(src, trace, nullptr, {}, progress);
}
Status ImportJsonLines(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportSamplesJsonLines(src, trace); }
Status ImportCsv(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportGpuCsv(src, trace); }
Status ImportSmiTable(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportNvidiaSmiTable(src, trace); }
Status ImportSmiDmon(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportNvidiaSmiDmon(src, trace); }
Status ImportTegra(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportTegrastats(src, trace); }

Status ImportXPlane(PeekableSource& src, Trace& trace, const ImportOptions& opts) {
  XSpaceImportOptions xo;
  if (opts.progress) xo.progress = [&](uint64_t done, uint64_t total) { opts.progress(src.name(), done, total); };
  return ImportXSpace(src, trace, xo);
}

Status ImportTimeline(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportMemoryTimeline(src, trace); }
Status ImportEventFile(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportTfEvents(src, trace); }

struct Entry {
  InputFormat format;
  FormatImporter importer;
};

constexpr Entry kImporters[] = {
    {InputFormat::kChromeJson, &ImportChrome},
    {InputFormat::kJsonLines, &ImportJsonLines},
    {InputFormat::kCsv, &ImportCsv},
    {InputFormat::kNvidiaSmiTable, &ImportSmiTable},
    {InputFormat::kNvidiaSmiDmon, &ImportSmiDmon},
    {InputFormat::kTegrastats, &ImportTegra},
    {InputFormat::kXSpace, &ImportXPlane},
    {InputFormat::kTfRecordEvents, &ImportEventFile},
    {InputFormat::kMemoryTimeline, &ImportTimeline},
};

}  // namespace

FormatImporter FindImporter(InputFormat format) {
  for (const auto& e : kImporters)
    if (e.format == format) return e.importer;
  return nullptr;
}

}  // namespace stepdoctor
