// Import problems, counted rather than fatal (Perfetto's stats table): each reason has a
// declared severity and description, and every report shows the non-zero ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepdoctor {

enum class Severity : uint8_t { kInfo, kWarning, kError };

// The longest name or text argument an importer keeps; longer ones are cut to this many bytes
// (at a UTF-8 boundary) and counted under kLongTextCut. The longest real kernel names (CUTLASS
// templates) run to about 10 KB; a 200 MB name would otherwise be copied into the string pool.
inline constexpr size_t kMaxTextBytes = 64 * 1024;

// Every reason an importer may skip, repair or note something. Keep the table in
// import_diagnostics.cc in the same order.
enum class ImportIssue : uint8_t {
  kMalformedEvent,        // a JSON event was not an object or had unreadable fields: skipped
  kMissingTimestamp,      // an event had no ts: skipped
  kNegativeDuration,      // dur < 0: skipped
  kUnmatchedEnd,          // an E event with no open B on its thread: skipped
  kUnclosedBegin,         // a B event never closed: closed at the end of its thread's last event
  kUnknownPhase,          // a phase we do not model (e.g. object snapshots): ignored
  kTruncatedInput,        // the file ended early; everything before the cut was imported
  kTrailingGarbage,       // bytes after the top-level value: ignored
  kBadCounterValue,       // a counter sample that is not a number: skipped
  kMissingDuration,       // a complete (X) event without dur: kept as an instant
  kCorruptRecord,         // a framed record (TFRecord, protobuf) failed its checksum or decode
  kSkippedFile,           // a file in a folder that is not a trace we read
  kUnsupportedContent,    // content we recognise but do not analyse yet
  kBadTimestamp,          // ts present but not a number: skipped
  kBadDuration,           // dur present but not a number: skipped
  kInvalidUtf8,           // text with invalid UTF-8 bytes: kept, each bad sequence replaced by U+FFFD
  kBrokenStructure,       // the JSON structure broke mid-file: everything before the break was read
  kOversizedValue,        // one value past the importer's size cap: reading stopped there
  kAssumedTiming,         // the input states no times: samples spaced by a stated or assumed interval
  kPadding,               // NUL bytes (a log file's padding after a crash or a copy): skipped
  kInstantWithDuration,   // a marker its producer writes as an instant carried a duration: kept as an instant
  kXPlaneMissingMetadata, // an XPlane event whose metadata id its plane does not define: kept, named by the id
  kTimeOutOfRange,        // a start, end or sample time outside +-kMaxTimeNs (core/checked_time.h): skipped
  kValueOutOfRange,       // a byte count past int64 or a step number past kMaxStepNumber: the sample skipped
  kIdNotInt64,            // a numeric pid/tid outside int64 or not whole (1e300, 2^64-1, 1.5): kept, read as its text
  kGpuAttribution,        // GPU log rows no GPU column tells apart: told apart another way (position, bursts)
  kSharedTimestamp,       // samples of one series sharing a time (a clock coarser than the polling): spread
  kAssumedUnit,           // a column without a unit, or a headerless log's column, read as what its values fit
  kJoinedCaptures,        // files of one process's successive profiling cycles: read as one worker
  kLongTextCut,           // a name or text argument over kMaxTextBytes: kept, cut to its first kMaxTextBytes
  kLargeValueDropped,     // an array or object over kMaxTextBytes inside an event: dropped, the event kept
  kDuplicateLane,         // a lane the same, event for event, as another of its worker (written twice): kept once
  kCount_
};

struct ImportIssueInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;  // "events skipped: malformed JSON object"
};

const ImportIssueInfo& GetImportIssueInfo(ImportIssue issue);

class ImportDiagnostics {
 public:
  void Count(ImportIssue issue, uint64_t n = 1) { counts_[static_cast<size_t>(issue)] += n; }
  // A note with detail (file name, byte offset); kept up to a limit, then only counted.
  void Note(ImportIssue issue, std::string detail);
  uint64_t count(ImportIssue issue) const { return counts_[static_cast<size_t>(issue)]; }
  const std::vector<std::pair<ImportIssue, std::string>>& notes() const { return notes_; }
  bool empty() const;
  void Merge(const ImportDiagnostics& other);

 private:
  uint64_t counts_[static_cast<size_t>(ImportIssue::kCount_)] = {};
  std::vector<std::pair<ImportIssue, std::string>> notes_;
};

// `text`, or its first kMaxTextBytes ending on a whole UTF-8 sequence, counted in `diag` under
// kLongTextCut.
std::string_view CapText(std::string_view text, ImportDiagnostics& diag);

}  // namespace stepdoctor
