#include "stepdoctor/tfrecord/tfrecord_file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "stepdoctor/importers/tfevents/crc32c.h"

namespace stepdoctor::tfrecord {

using tfevents::Crc32c;
using tfevents::MaskCrc;

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kZlib: return "zlib";
  }
  return "none";
}

Result<Compression> ParseCompression(std::string_view name) {
  if (name.empty() || name == "none" || name == "NONE") return Compression::kNone;
  if (name == "gzip" || name == "GZIP") return Compression::kGzip;
  if (name == "zlib" || name == "ZLIB") return Compression::kZlib;
  return Result<Compression>(ErrorCode::kInvalidArgument,
                             "unknown compression '" + std::string(name) + "' (none, gzip or zlib)");
}

Result<Compression> DetectCompression(std::string_view head) {
  if (head.empty()) return Compression::kNone;
  if (head.size() >= 12) {
    uint32_t want;
    std::memcpy(&want, head.data() + 8, 4);
    if (MaskCrc(Crc32c(head.substr(0, 8))) == want) return Compression::kNone;
  }
  auto b0 = static_cast<unsigned char>(head[0]);
  auto b1 = head.size() > 1 ? static_cast<unsigned char>(head[1]) : 0;
  if (b0 == 0x1f && b1 == 0x8b) return Compression::kGzip;
  // RFC 1950: CM = 8 (deflate), CINFO <= 7, and the two header bytes a multiple of 31.
  if (head.size() >= 2 && (b0 & 0x0f) == 8 && (b0 >> 4) <= 7 && ((b0 << 8) | b1) % 31 == 0)
    return Compression::kZlib;
  return Result<Compression>(ErrorCode::kUnknownFormat,
                             "not a TFRecord file (no valid first record header, nor gzip or zlib data)");
}

Result<OpenedTfRecord> OpenTfRecord(std::unique_ptr<ByteSource> raw) {
  auto peek = std::make_unique<PeekableSource>(std::move(raw));
  auto head = peek->Peek(12);
  if (!head.ok()) return head.status();
  auto c = DetectCompression(*head);
  if (!c.ok()) return Result<OpenedTfRecord>(c.code(), peek->name() + ": " + c.message());
  OpenedTfRecord out;
  out.compression = *c;
  if (*c == Compression::kGzip) out.source = GzipSource(std::move(peek));
  else if (*c == Compression::kZlib) out.source = ZlibSource(std::move(peek));
  else out.source = std::move(peek);
  return out;
}

Result<OpenedTfRecord> OpenTfRecordFile(const std::string& path) {
  auto raw = FileSource(path);
  if (!raw.ok()) return raw.status();
  return OpenTfRecord(std::move(raw).value());
}

uint32_t AppendRecord(std::string_view data, std::string* out) {
  char header[12];
  uint64_t len = data.size();
  std::memcpy(header, &len, 8);
  uint32_t c = MaskCrc(Crc32c(std::string_view(header, 8)));
  std::memcpy(header + 8, &c, 4);
  out->append(header, 12);
  out->append(data);
  uint32_t crc = Crc32c(data);
  c = MaskCrc(crc);
  out->append(reinterpret_cast<const char*>(&c), 4);
  return crc;
}

Result<std::string> CompressStream(std::string_view plain, Compression c) {
  if (c == Compression::kNone) return std::string(plain);
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  // 16 + 15: a gzip wrapper; 15: a zlib wrapper. Level 6 is zlib's (and TensorFlow's) default.
  if (deflateInit2(&zs, 6, Z_DEFLATED, c == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return Result<std::string>(ErrorCode::kInternal, "deflateInit2 failed");
  std::string out(deflateBound(&zs, plain.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Result<std::string>(ErrorCode::kInternal, "deflate did not finish");
  return out;
}

}  // namespace stepdoctor::tfrecord

namespace stepdoctor::tfrecord {

Result<std::vector<std::string>> ExpandTfRecordPaths(const std::vector<std::string>& paths, size_t* passed_over) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  *passed_over = 0;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);  // missing or unreadable files are reported when opened
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec)) found.push_back(it->path().string());
    if (ec) return Result<std::vector<std::string>>(ErrorCode::kIoError, p + ": cannot list: " + ec.message());
    std::sort(found.begin(), found.end());
    for (auto& f : found) {
      auto src = FileSource(f);
      bool keep = false;
      if (src.ok()) {
        char head[12];
        auto n = (*src)->Read(head, sizeof head);
        // An empty file is a TFRecord file with no records; a one-byte file cannot be one.
        keep = n.ok() && *n > 0 && DetectCompression(std::string_view(head, *n)).ok();
      }
      if (keep) out.push_back(std::move(f));
      else ++*passed_over;
    }
  }
  return out;
}

}  // namespace stepdoctor::tfrecord
