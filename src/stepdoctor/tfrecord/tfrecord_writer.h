// Writes one TFRecord file atomically: records go to a temporary file next to the target
// (plain, or streamed through deflate for GZIP/ZLIB), and only Commit() renames it into place.
// A writer destroyed without Commit() removes its temporary file, so a failed run leaves no
// half-written shard behind.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/tfrecord/tfrecord_file.h"

namespace stepdoctor::tfrecord {

class TfRecordWriter {
 public:
  TfRecordWriter() = default;
  TfRecordWriter(const TfRecordWriter&) = delete;
  TfRecordWriter& operator=(const TfRecordWriter&) = delete;
  ~TfRecordWriter();

  // Creates the temporary file for `path`; errors name the path.
  Status Open(const std::string& path, Compression c);
  Status Append(std::string_view record);
  // Flushes, syncs and closes the temporary file, leaving it in place (not yet renamed).
  Status Finish();
  // Renames the finished temporary file to the target path.
  Status Commit();

  uint64_t records() const { return records_; }
  uint64_t file_bytes() const { return file_bytes_; }  // bytes on disk (compressed where it is)
  uint32_t file_crc32c() const { return file_crc_; }   // CRC-32C of the bytes on disk, unmasked
  const std::string& temp_path() const { return temp_; }

 private:
  Status Flush(bool finish);
  Status WriteOut(const char* data, size_t n);

  std::string path_, temp_;
  Compression compression_ = Compression::kNone;
  int fd_ = -1;
  bool deflating_ = false;
  z_stream zs_{};
  std::string buf_, out_;  // pending framed records; compressed output
  uint64_t records_ = 0, file_bytes_ = 0;
  uint32_t file_crc_ = 0;
  bool finished_ = false, committed_ = false;
};

}  // namespace stepdoctor::tfrecord
