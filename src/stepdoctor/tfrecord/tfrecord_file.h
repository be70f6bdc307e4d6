// TFRecord files as TensorFlow writes them: plain, or the whole stream GZIP- or ZLIB-compressed
// (tf.io.TFRecordOptions(compression_type=...)). Opening detects which from the first bytes;
// writing frames records with the same CRC-32C code the event-file reader checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"

namespace stepdoctor::tfrecord {

enum class Compression { kNone, kGzip, kZlib };
const char* CompressionName(Compression c);  // "none", "gzip", "zlib"
// Parses "none|gzip|zlib" (also TensorFlow's "", "GZIP", "ZLIB").
Result<Compression> ParseCompression(std::string_view name);

// What the first bytes say. A plain file is recognised by a valid first header (its length
// checksum), so a record whose length happens to start like a zlib header is still plain.
// kUnknownFormat when the bytes are none of the three; an empty input is plain (no records).
Result<Compression> DetectCompression(std::string_view head);

struct OpenedTfRecord {
  std::unique_ptr<ByteSource> source;  // the decompressed record stream
  Compression compression = Compression::kNone;
};
// Opens `raw` (a file or memory source) and wraps it in the decompressor its first bytes ask for.
Result<OpenedTfRecord> OpenTfRecord(std::unique_ptr<ByteSource> raw);
Result<OpenedTfRecord> OpenTfRecordFile(const std::string& path);

// One record's framing: length, masked CRC of the length, data, masked CRC of the data.
// Returns the data's CRC-32C unmasked (so a writer can extend a file checksum without a pass).
uint32_t AppendRecord(std::string_view data, std::string* out);
inline constexpr size_t kRecordOverheadBytes = 16;

// Compresses a whole record stream as TensorFlow's writer does for GZIP/ZLIB (one stream).
Result<std::string> CompressStream(std::string_view plain, Compression c);

}  // namespace stepdoctor::tfrecord

namespace stepdoctor::tfrecord {

// Files named on a command line: a file is taken as it is; a folder is searched recursively
// (sorted) and only files whose first bytes are TFRecord (plain, gzip or zlib) are kept, so a
// shard folder's manifest.json is passed over. `passed_over` counts the files left out.
Result<std::vector<std::string>> ExpandTfRecordPaths(const std::vector<std::string>& paths, size_t* passed_over);

}  // namespace stepdoctor::tfrecord
