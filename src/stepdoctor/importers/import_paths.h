// Reads files and folders into one Trace: finds the inputs under folders (TensorBoard
// logdirs included), detects each file's format from its first bytes, and dispatches to the
// importer of that format. Each trace file becomes one worker.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/importers/detect_format.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct ImportOptions {
  std::string profile_run;  // TensorBoard logdir: plugins/profile/<run> to read; empty = newest
  // Called with (bytes consumed, total bytes) of the current file, for progress display.
  std::function<void(const std::string& path, uint64_t done, uint64_t total)> progress;
  // Keep each file's Trace apart (ImportResult::parts, not finalized) instead of merging them
  // into `trace`; MergeParts merges them as ImportPaths would have.
  bool keep_parts = false;
};

struct ImportedFile {
  std::string path;
  InputFormat format = InputFormat::kUnknown;
  uint64_t bytes = 0;  // uncompressed bytes read, where the importer counts them
  std::string error;   // set when this file failed but others were read
};

struct ImportResult {
  Trace trace;  // with keep_parts: only the folder-level notes (files skipped), until MergeParts
  std::vector<Trace> parts;  // keep_parts: one per file read, in order
  std::vector<std::string> part_paths;
  std::vector<ImportedFile> files;
  std::vector<std::string> profile_runs;  // runs found under plugins/profile, oldest first
  std::string chosen_run;
};

// One importer per format. Each adds what it reads to `trace`; it returns an error only when
// the source is unusable as a whole (the message names the source).
using FormatImporter = Status (*)(PeekableSource& src, Trace& trace, const ImportOptions& opts);
// The importer for a format, or nullptr where stepdoctor does not read it.
FormatImporter FindImporter(InputFormat format);

// Imports one source whose format is detected from its bytes.
Status ImportSource(PeekableSource& src, Trace& trace, const ImportOptions& opts, ImportedFile* info = nullptr);

// Files named directly must be readable (else an error naming the file, exit status 2);
// files found inside folders that are not a format we read are noted and skipped.
Result<ImportResult> ImportPaths(const std::vector<std::string>& paths, const ImportOptions& opts = {});

// Merges `parts` into `trace` and finalizes it: the result ImportPaths gives without keep_parts.
void MergeParts(ImportResult* r);

}  // namespace stepdoctor
