#include "stepdoctor/model/import_diagnostics.h"

namespace stepdoctor {
namespace {

constexpr size_t kMaxNotes = 20;  // past this, problems are only counted

constexpr ImportIssueInfo kInfo[] = {
    {"malformed_event", Severity::kWarning, "events skipped: not a readable JSON object"},
    {"missing_timestamp", Severity::kWarning, "events skipped: no timestamp"},
    {"negative_duration", Severity::kWarning, "events skipped: negative duration"},
    {"unmatched_end", Severity::kWarning, "end (E) events skipped: no open begin on the thread"},
    {"unclosed_begin", Severity::kInfo, "begin (B) events never closed: closed at the thread's end"},
    {"unknown_phase", Severity::kInfo, "events ignored: phase not modelled"},
    {"truncated_input", Severity::kError, "input ended early: only the part before the cut was read"},
    {"trailing_garbage", Severity::kWarning, "bytes after the end of the trace ignored"},
    {"bad_counter_value", Severity::kWarning, "counter samples skipped: value not a number"},
    {"missing_duration", Severity::kInfo, "complete (X) events without dur kept as instants"},
    {"corrupt_record", Severity::kError, "records skipped: checksum or decode failure"},
    {"skipped_file", Severity::kInfo, "files skipped: not a format stepdoctor reads"},
    {"unsupported_content", Severity::kInfo, "content recognised but not analysed"},
    {"bad_timestamp", Severity::kWarning, "events skipped: timestamp not a number"},
    {"bad_duration", Severity::kWarning, "events skipped: duration not a number"},
    {"invalid_utf8", Severity::kInfo, "events kept with invalid UTF-8 bytes replaced by U+FFFD"},
    {"broken_structure", Severity::kError, "JSON structure broken: only the part before the break was read"},
    {"oversized_value", Severity::kError, "a single value past the size cap: reading stopped there"},
    {"assumed_timing", Severity::kInfo, "file(s) whose sample times rest on an assumption (the note below says which)"},
    {"padding", Severity::kInfo, "file(s) padded with NUL bytes: the NULs skipped"},
    {"instant_with_duration", Severity::kWarning, "markers written as instants carried a duration: kept as instants"},
    {"xplane_missing_metadata", Severity::kWarning, "XPlane events with metadata their plane does not define: kept, named by the id"},
    {"time_out_of_range", Severity::kWarning, "events or samples skipped: a time outside the representable range (about 1823-2116)"},
    {"value_out_of_range", Severity::kWarning, "samples or scalar points skipped: a byte count or step number too large to represent"},
    {"id_not_int64", Severity::kInfo, "events whose pid or tid is a number outside int64 or not whole: kept, the id read as its text"},
    {"gpu_attribution", Severity::kWarning, "GPU log(s) whose GPUs no GPU column told apart: told apart by another column, by position, or by bursts of rows"},
    {"shared_timestamp", Severity::kInfo, "samples sharing a time with another of the same GPU: spread evenly up to the next time"},
    {"assumed_unit", Severity::kInfo, "columns read as the one unit or field their values fit (no unit, or no header row)"},
    {"joined_captures", Severity::kInfo, "process(es) whose successive profiling cycles, one file each, were read as one worker"},
    {"long_text_cut", Severity::kInfo, "names or text arguments over 64 KiB, cut to their first 64 KiB"},
    {"large_value_dropped", Severity::kInfo, "arrays or objects over 64 KiB inside events, dropped (the events kept)"},
    {"duplicate_lane", Severity::kWarning, "lanes that repeat another lane event for event (a timeline written twice): kept once"},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == static_cast<size_t>(ImportIssue::kCount_));

}  // namespace

const ImportIssueInfo& GetImportIssueInfo(ImportIssue issue) {
  return kInfo[static_cast<size_t>(issue)];
}

void ImportDiagnostics::Note(ImportIssue issue, std::string detail) {
  Count(issue);
  if (notes_.size() < kMaxNotes) notes_.emplace_back(issue, std::move(detail));
}

bool ImportDiagnostics::empty() const {
  for (uint64_t c : counts_)
    if (c) return false;
  return true;
}

void ImportDiagnostics::Merge(const ImportDiagnostics& other) {
  for (size_t i = 0; i < static_cast<size_t>(ImportIssue::kCount_); ++i) counts_[i] += other.counts_[i];
  for (const auto& n : other.notes_)
    if (notes_.size() < kMaxNotes) notes_.push_back(n);
}

std::string_view CapText(std::string_view text, ImportDiagnostics& diag) {
  if (text.size() <= kMaxTextBytes) return text;
  diag.Count(ImportIssue::kLongTextCut);
  size_t n = kMaxTextBytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // a continuation byte
  return text.substr(0, n);
}

}  // namespace stepdoctor
