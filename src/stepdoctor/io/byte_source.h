// Byte streams the importers read from: a file, a buffer, or a gzip stream over either.
// Importers take a ByteSource, never only a path, so tests and fuzzers feed bytes directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"

namespace stepdoctor {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf; returns 0 at the end. An error names the source.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  // The name used in messages (a path, or "<memory>").
  virtual const std::string& name() const = 0;
  // Bytes consumed from the underlying storage so far (compressed bytes for gzip), for progress.
  virtual uint64_t consumed() const = 0;
  // Total size of the underlying storage where known, else 0.
  virtual uint64_t total() const = 0;
  // True once the source has found that its data ended early or was damaged (a cut .gz):
  // what was read so far is valid, the rest is missing.
  virtual bool truncated() const { return false; }
  // Where the unread bytes already lie in memory as one writable block followed by at least
  // kContiguousPadding writable bytes (a mapped file, an inflated .gz): hands the block over,
  // starting `rewind` bytes before the read position (bytes already read, which a
  // PeekableSource replays), and sets *len; Read() then returns 0. nullptr where the bytes do
  // not lie so (streams, caller-owned memory) or `rewind` reaches past the start. A parser
  // may change bytes of the block while it runs (and restore them); it stays valid for the
  // source's life.
  virtual char* TakeContiguous(size_t rewind, size_t* len) { return nullptr; }
  // After TakeContiguous: the block's bytes before `offset` will not be read again, so their
  // memory may be given back.
  virtual void ReleaseBefore(size_t offset) {}
};

// Writable bytes after a block TakeContiguous hands over (simdjson reads 64 past its input).
inline constexpr size_t kContiguousPadding = 256;

// A source over bytes the caller keeps alive.
std::unique_ptr<ByteSource> MemorySource(std::string_view bytes, std::string name = "<memory>");
// A source over a file; kNotFound / kIoError name the path.
Result<std::unique_ptr<ByteSource>> FileSource(const std::string& path);
// Inflates gzip (all members, so concatenated .gz files work) from `inner`.
std::unique_ptr<ByteSource> GzipSource(std::unique_ptr<ByteSource> inner);
// Inflates a zlib (RFC 1950) stream from `inner`: TFRecord files written with ZLIB compression.
std::unique_ptr<ByteSource> ZlibSource(std::unique_ptr<ByteSource> inner);

// Reads the first bytes without consuming them: a source that replays a prefix, then the rest.
class PeekableSource : public ByteSource {
 public:
  explicit PeekableSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {}
  // Returns up to n leading bytes (fewer at the end of input); does not consume them.
  Result<std::string_view> Peek(size_t n);
  Result<size_t> Read(char* buf, size_t n) override;
  const std::string& name() const override { return inner_->name(); }
  uint64_t consumed() const override { return inner_->consumed(); }
  uint64_t total() const override { return inner_->total(); }
  bool truncated() const override { return inner_->truncated(); }
  char* TakeContiguous(size_t rewind, size_t* len) override;
  void ReleaseBefore(size_t offset) override { inner_->ReleaseBefore(offset); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string head_;
  size_t head_pos_ = 0;
};

// How a .gz is inflated. kAuto: libdeflate whole-buffer where the compressed bytes are in
// memory (a mapped file, bytes handed in) and the result fits kWholeInflateMaxBytes, else zlib
// streaming. kZlib: always zlib streaming (the reference). STEPDOCTOR_INFLATE=zlib or
// =libdeflate in the environment overrides kAuto, for measuring one against the other.
enum class GzipInflater { kAuto, kZlib, kLibdeflate };

// Opens a path (a regular file is memory-mapped, anything else read) and, if its first bytes
// are gzip's magic, inflates it.
Result<std::unique_ptr<PeekableSource>> OpenMaybeCompressed(const std::string& path,
                                                            GzipInflater inflater = GzipInflater::kAuto);
// The same over bytes in memory, which the caller keeps alive.
std::unique_ptr<PeekableSource> OpenMaybeCompressed(std::string_view bytes, std::string name,
                                                    GzipInflater inflater = GzipInflater::kAuto);
// The inflater kAuto resolves to (after STEPDOCTOR_INFLATE).
GzipInflater ResolveInflater(GzipInflater requested);

// Threads stepdoctor may use: STEPDOCTOR_THREADS if set (>= 1), else the machine's cores.
int WorkerThreads();

// Reads a whole (small) source into a string; fails past max_bytes.
Result<std::string> ReadAll(ByteSource& src, size_t max_bytes);

}  // namespace stepdoctor
