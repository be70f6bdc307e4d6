// One sampling session of `stepdoctor run` or `watch`: sampler, samples file and loop put
// together. The CLI decides what to print; the session reports through callbacks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/live/sample.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::live {

struct LiveSessionOptions {
  int64_t interval_ns = 1000000000;
  int64_t duration_ns = 0;             // 0: until the tree (watch) or the child (run) exits
  int64_t child_pid = -1;              // run: our child, left unreaped for the caller
  std::vector<std::string> command;    // recorded in the header
  int rank = -1;                       // recorded in the header: the job rank (RankFromEnvironment)
  bool gpus = true;
  std::string nvml_library = "libnvidia-ml.so.1";
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string& line)> note;    // once-only notes ("no GPU samples: ...")
  std::function<void(const std::string& line)> status;  // after each sample: a status line
};

struct LiveSessionResult {
  int64_t samples = 0;
  int64_t start_ns = 0, end_ns = 0;
};

// Samples `root_pid`'s tree into `writer` until it ends (or the duration, or `stop`).
// REQUIRED: `root_pid` exists; `writer` is a new samples file (SamplesWriter::Create), made
// before the job starts so a path that cannot be written costs no run.
// `finish` is called with the last timestamp before the file is closed, and returns the exit
// code recorded in the end line (-1: unknown).
LiveSessionResult RunLiveSession(int64_t root_pid, SamplesWriter& writer, const LiveSessionOptions& opts,
                                 const std::function<int()>& finish = {});

// "1s", "500ms", "2m", "1h", "0.5" (seconds) -> nanoseconds; an error for anything else.
Result<int64_t> ParseDurationNs(std::string_view text);

// "0:12  CPU 187%  GPU 23%  disk 45.1 MB/s  12 samples" (the job's CPU, % of one core).
std::string FormatStatusLine(const Sample& s, int64_t samples, double elapsed_s);

}  // namespace stepdoctor::live
