// `tfrecord pack`: a folder of files (images, audio, any bytes) into shards of
// tf.train.Example {data: bytes, label: int64, path: bytes}, shuffled with a seed, so a
// job reads a few large files sequentially instead of many small ones.
//
// Shards are written to temporary files and renamed only once every shard is complete; the
// manifest (manifest.json: counts, label map, shard checksums, skipped inputs) goes last. A run
// that fails leaves the output folder as it was.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/tfrecord/tfrecord_file.h"

namespace stepdoctor::tfrecord {

inline constexpr uint64_t kDefaultShardBytes = 128ull << 20;  // TensorFlow's advice: shards of 100-200 MB

struct PackOptions {
  std::string input_dir;
  std::string output_dir;
  int shards = 0;               // exactly this many shards; 0: size them by shard_bytes
  uint64_t shard_bytes = kDefaultShardBytes;
  std::string labels_csv;       // "path,label" rows (path relative to input_dir); empty: subfolder names
  uint64_t seed = 0;
  std::string prefix = "data";  // shards are PREFIX-00000-of-00004.tfrecord
  Compression compression = Compression::kNone;
  int threads = 1;
};

struct PackedShard {
  std::string file;  // name inside output_dir
  uint64_t records = 0;
  uint64_t bytes = 0;       // on disk
  uint32_t crc32c = 0;      // CRC-32C of the file's bytes
};

struct SkippedInput {
  std::string path;    // relative to input_dir
  std::string reason;  // one line
};

struct PackResult {
  uint64_t records = 0;      // files packed
  uint64_t data_bytes = 0;   // their bytes
  uint64_t unlabeled = 0;    // packed with label -1 (no subfolder)
  std::map<std::string, int64_t> labels;         // label name -> id
  std::map<int64_t, uint64_t> label_counts;      // id -> records
  std::vector<PackedShard> shards;
  std::vector<SkippedInput> skipped;             // inputs not packed, with the reason
  // Shards of an earlier pack with the same prefix left in output_dir (another shard count):
  // not in the manifest, left alone, named so the user can remove them before reading PREFIX-*.
  std::vector<std::string> stale;
  std::string manifest_path;
};

// Errors: the input folder missing or empty, a bad labels CSV, the output not writable. An
// input file that cannot be read is skipped and listed, not fatal.
Result<PackResult> PackFolder(const PackOptions& o);

}  // namespace stepdoctor::tfrecord
