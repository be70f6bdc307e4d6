// The table of formats stepdoctor reads and the importer of each.
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor {
namespace {

Status ImportChrome(PeekableSource& src, Trace& trace, const ImportOptions&) { return ImportChromeJson(src, trace); }

struct Entry {
  InputFormat format;
  FormatImporter importer;
};

constexpr Entry kImporters[] = {
    {InputFormat::kChromeJson, &ImportChrome},
};

}  // namespace

FormatImporter FindImporter(InputFormat format) {
  for (const auto& e : kImporters)
    if (e.format == format) return e.importer;
  return nullptr;
}

}  // namespace stepdoctor
