#include "stepdoctor/tfrecord/tfrecord_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "stepdoctor/importers/tfevents/crc32c.h"

namespace stepdoctor::tfrecord {
namespace {

constexpr size_t kFlushBytes = 4 << 20;  // write to disk in 4 MiB pieces: few syscalls, little memory

Status IoError(const std::string& path, const char* what) {
  return Status(ErrorCode::kIoError, path + ": cannot " + what + ": " + std::strerror(errno));
}

}  // namespace

TfRecordWriter::~TfRecordWriter() {
  if (deflating_) deflateEnd(&zs_);
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

Status TfRecordWriter::Open(const std::string& path, Compression c) {
  path_ = path;
  compression_ = c;
  temp_ = path + ".tmp-" + std::to_string(::getpid());
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    Status s = IoError(temp_, "create");
    temp_.clear();
    return s;
  }
  if (c != Compression::kNone) {
    // 16 + 15: gzip wrapper; 15: zlib wrapper; level 6 is zlib's (and TensorFlow's) default.
    if (deflateInit2(&zs_, 6, Z_DEFLATED, c == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
      return Status(ErrorCode::kInternal, "deflateInit2 failed");
    deflating_ = true;
  }
  return Status::Ok();
}

Status TfRecordWriter::Append(std::string_view record) {
  size_t at = buf_.size();
  uint32_t data_crc = AppendRecord(record, &buf_);
  if (!deflating_) {
    // The bytes on disk are the framing: the file's CRC extends over the 12-byte header, takes
    // the data's from AppendRecord (no second pass over it) and then the 4-byte footer.
    file_crc_ = tfevents::Crc32c(std::string_view(buf_.data() + at, 12), file_crc_);
    file_crc_ = tfevents::Crc32cCombine(file_crc_, data_crc, record.size());
    file_crc_ = tfevents::Crc32c(std::string_view(buf_.data() + buf_.size() - 4, 4), file_crc_);
  }
  ++records_;
  return buf_.size() >= kFlushBytes ? Flush(false) : Status::Ok();
}

Status TfRecordWriter::WriteOut(const char* data, size_t n) {
  if (deflating_) file_crc_ = tfevents::Crc32c(std::string_view(data, n), file_crc_);  // plain: in Append
  const uint64_t at = file_bytes_;
  file_bytes_ += n;
  while (n > 0) {
    ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return IoError(temp_, "write");
    data += w;
    n -= size_t(w);
  }
  // Start writing these pages to disk now, without waiting: the disk works while the next records
  // are read and framed, and the fsync at the end waits for the last pieces only. Advice: where the
  // file system does not support it, the fsync does all the work as before.
  ::sync_file_range(fd_, off_t(at), off_t(file_bytes_ - at), SYNC_FILE_RANGE_WRITE);
  return Status::Ok();
}

Status TfRecordWriter::Flush(bool finish) {
  if (!deflating_) {
    Status s = WriteOut(buf_.data(), buf_.size());
    buf_.clear();
    return s;
  }
  zs_.next_in = reinterpret_cast<Bytef*>(buf_.data());
  zs_.avail_in = static_cast<uInt>(buf_.size());
  out_.resize(kFlushBytes);
  for (;;) {
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(out_.size());
    int rc = deflate(&zs_, finish ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) return Status(ErrorCode::kInternal, temp_ + ": deflate failed");
    Status s = WriteOut(out_.data(), out_.size() - zs_.avail_out);
    if (!s.ok()) return s;
    if (finish ? rc == Z_STREAM_END : zs_.avail_out != 0) break;
  }
  buf_.clear();
  return Status::Ok();
}

Status TfRecordWriter::Finish() {
  if (fd_ < 0) return Status(ErrorCode::kInternal, path_ + ": writer not open");
  Status s = Flush(true);
  if (!s.ok()) return s;
  if (::fsync(fd_) != 0) return IoError(temp_, "sync");
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return IoError(temp_, "close");
  finished_ = true;
  return Status::Ok();
}

Status TfRecordWriter::Commit() {
  if (!finished_) return Status(ErrorCode::kInternal, path_ + ": commit before finish");
  if (::rename(temp_.c_str(), path_.c_str()) != 0) return IoError(path_, "rename into place");
  committed_ = true;
  return Status::Ok();
}

}  // namespace stepdoctor::tfrecord
