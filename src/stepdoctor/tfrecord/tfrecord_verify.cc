#include "stepdoctor/tfrecord/tfrecord_verify.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "stepdoctor/importers/tfevents/tfrecord_reader.h"

namespace stepdoctor::tfrecord {

using tfevents::TfRecordReader;

const char* ProblemName(Problem p) {
  switch (p) {
    case Problem::kLengthCrc: return "length_crc";
    case Problem::kDataCrc: return "data_crc";
    case Problem::kTruncated: return "truncated";
    case Problem::kCompressed: return "compressed_stream";
  }
  return "?";
}

VerifyResult VerifyStream(ByteSource& src, const std::function<void(std::string_view)>& on_record) {
  VerifyResult r;
  r.name = src.name();
  TfRecordReader reader(src);
  std::string_view rec;
  for (;;) {
    auto next = reader.Read(&rec);
    if (!next.ok()) {
      r.error = next.status();
      break;
    }
    if (*next == TfRecordReader::Next::kEnd) {
      r.bytes = reader.offset();
      break;
    }
    if (*next == TfRecordReader::Next::kRecord) {
      ++r.records;
      if (on_record) on_record(rec);
    } else if (*next == TfRecordReader::Next::kCorrupt) {
      r.problems.push_back({reader.last_damage() == TfRecordReader::Damage::kDataCrc ? Problem::kDataCrc
                                                                                      : Problem::kLengthCrc,
                            reader.offset()});
    } else {  // kTruncated
      r.problems.push_back({Problem::kTruncated, reader.offset()});
      r.bytes = reader.offset();
      break;
    }
  }
  r.skipped_bytes = reader.skipped_bytes();
  // A damaged gzip/zlib stream ends early: the records read are sound, the rest is missing.
  if (src.truncated() && r.error.ok()) {
    if (!r.problems.empty() && r.problems.back().problem == Problem::kTruncated) r.problems.pop_back();
    r.problems.push_back({Problem::kCompressed, r.bytes});
  }
  return r;
}

VerifyResult VerifyFile(const std::string& path) {
  auto opened = OpenTfRecordFile(path);
  if (!opened.ok()) {
    VerifyResult r;
    r.name = path;
    r.error = opened.status();
    return r;
  }
  VerifyResult r = VerifyStream(*opened->source);
  r.name = path;
  r.compression = opened->compression;
  return r;
}

std::vector<VerifyResult> VerifyFiles(const std::vector<std::string>& paths, int threads) {
  std::vector<VerifyResult> out(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) out[i] = VerifyFile(paths[i]);
  };
  int n = std::clamp<int>(threads, 1, static_cast<int>(std::max<size_t>(paths.size(), 1)));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace stepdoctor::tfrecord
