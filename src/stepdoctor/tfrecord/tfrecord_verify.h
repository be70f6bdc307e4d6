// `tfrecord verify`: checks both masked CRC-32Cs of every record of TFRecord files (plain, GZIP or
// ZLIB), with the event-file reader's framing code, and reports where damage starts.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/tfrecord/tfrecord_file.h"

namespace stepdoctor::tfrecord {

enum class Problem {
  kLengthCrc,  // a header's length checksum failed; reading resumed at the next valid header
  kDataCrc,    // a record's data checksum failed; the record was skipped
  kTruncated,  // the file ends inside a record (cut, or still being written)
  kCompressed, // the compressed stream is damaged or cut: what follows it is lost
};
const char* ProblemName(Problem p);  // "length_crc", "data_crc", "truncated", "compressed_stream"

struct RecordProblem {
  Problem problem;
  uint64_t offset = 0;  // byte offset of the record's header in the (decompressed) stream
};

struct VerifyResult {
  std::string name;
  Compression compression = Compression::kNone;
  uint64_t records = 0;         // records whose both checksums hold
  uint64_t bytes = 0;           // bytes of the (decompressed) stream read
  uint64_t skipped_bytes = 0;   // bytes passed over looking for a valid header
  std::vector<RecordProblem> problems;
  Status error;                 // set when the file could not be read at all
  bool ok() const { return error.ok() && problems.empty(); }
};

// Verifies one stream, handing each sound record to `on_record` when given (inspect reads
// records through this, so the framing checks live in one place).
// REQUIRED: `src` is already decompressed (see OpenTfRecord).
VerifyResult VerifyStream(ByteSource& src, const std::function<void(std::string_view)>& on_record = nullptr);
// Opens, detects compression and verifies; an unreadable or non-TFRecord file sets `error`.
VerifyResult VerifyFile(const std::string& path);
// Verifies files on up to `threads` threads; results come back in the order of `paths`.
std::vector<VerifyResult> VerifyFiles(const std::vector<std::string>& paths, int threads);

}  // namespace stepdoctor::tfrecord
