// Writes samples as JSON lines (docs/samples-format.md): a header object naming the format,
// one object per sample, and an end object with the exit status. Each line is flushed, so a
// run killed half-way leaves a file `stepdoctor diagnose` still reads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/live/nvml_sampler.h"
#include "stepdoctor/live/sample.h"

namespace stepdoctor::live {

inline constexpr int kSamplesFormatVersion = 1;  // the "stepdoctor_samples" header value

struct SamplesHeader {
  std::string hostname;
  int64_t pid = 0;                    // the root of the sampled process tree
  int rank = -1;                      // the job rank from the launcher's environment; -1 unknown
  std::vector<std::string> command;   // argv of `run`; empty for `watch`
  int64_t start_ns = 0;               // epoch ns
  int64_t interval_ns = 0;
  int cores = 0;
  std::vector<GpuInfo> gpus;
  std::string nvml;                   // "ok", or why there are no GPU series
};

// What Create does when the path is taken.
enum class SamplesPathMode {
  kExact,      // an --out the user named: an existing file is an error (kInvalidArgument)
  kFirstFree,  // a default name: "-2", "-3", ... before ".jsonl" until a name is free
};

class SamplesWriter {
 public:
  // Creates `path` exclusively (O_CREAT | O_EXCL): an existing file is never truncated or
  // written into, so two runs in one folder keep two files. The error names the path; path()
  // is the name actually created.
  static Result<std::unique_ptr<SamplesWriter>> Create(const std::string& path, SamplesPathMode mode);
  ~SamplesWriter();
  SamplesWriter(const SamplesWriter&) = delete;
  SamplesWriter& operator=(const SamplesWriter&) = delete;

  void WriteHeader(const SamplesHeader& h);
  void Write(const Sample& s);
  // `exit_code` is the child's status as `run` returns it; -1 when unknown (watch).
  void WriteEnd(int64_t ts_ns, int exit_code, int64_t samples);
  const std::string& path() const { return path_; }

 private:
  SamplesWriter(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  void Line(const std::string& s);
  std::FILE* f_;
  std::string path_;
};

// The same lines as text (tests, fuzz seeds).
std::string SamplesHeaderJson(const SamplesHeader& h);
std::string SampleJson(const Sample& s);
// JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);

}  // namespace stepdoctor::live
