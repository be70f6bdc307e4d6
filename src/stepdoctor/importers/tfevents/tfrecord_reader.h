// Cuts a TFRecord stream (TensorBoard event files) into records, verifying both checksums:
//   uint64 length | uint32 masked CRC-32C of the length | data | uint32 masked CRC-32C of data
// A record whose data checksum fails is skipped; a header whose checksum fails makes the reader
// scan forward for the next valid header. Either way the caller hears of it (with the byte
// offset) and reading goes on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/io/stream_buffer.h"

namespace stepdoctor::tfevents {

class TfRecordReader {
 public:
  enum class Next {
    kRecord,     // `record` holds the next record's data
    kEnd,        // clean end of input
    kCorrupt,    // a damaged record at offset() was skipped; call Read again for the next
    kTruncated,  // the input ended inside a record (a file still being written, or cut)
  };

  explicit TfRecordReader(ByteSource& src) : in_(src) {}

  // `record` stays valid until the next call. I/O errors come back as errors.
  Result<Next> Read(std::string_view* record);
  // Byte offset of the record last returned, or of the damage last reported.
  uint64_t offset() const { return offset_; }
  // Bytes skipped while looking for a valid header after damage.
  uint64_t skipped_bytes() const { return skipped_; }

  enum class Damage {
    kNone,       // the last call returned no damage
    kLengthCrc,  // the header's length checksum failed (or the length is impossible)
    kDataCrc,    // the header was sound but the data checksum failed
  };
  // What the last kCorrupt was; offset() is where that record's header starts.
  Damage last_damage() const { return damage_; }

  static constexpr uint64_t kMaxRecordBytes = 1ull << 31;  // larger lengths are damage

 private:
  static bool HeaderAt(const char* at, uint64_t* len);

  StreamBuffer in_;
  uint64_t offset_ = 0;
  uint64_t skipped_ = 0;
  bool resync_ = false;  // the last header failed: scan for the next good one
  Damage damage_ = Damage::kNone;
};

}  // namespace stepdoctor::tfevents
