// A one-line progress bar on stderr while inputs are read: only when stderr is a terminal,
// and only once reading has taken more than a second (small traces print nothing).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace stepdoctor::cli {

class ProgressBar {
 public:
  // `enabled` false makes every call a no-op (not a terminal, or output piped into a CI log).
  explicit ProgressBar(bool enabled, std::FILE* out = stderr);
  ~ProgressBar() { Finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Bytes read so far of `path`; `total` 0 means unknown (then only the bytes are shown).
  void Update(const std::string& path, uint64_t done, uint64_t total);
  // Clears the line if anything was drawn. Safe to call more than once.
  void Finish();
  // The callback to put in ImportOptions::progress.
  std::function<void(const std::string&, uint64_t, uint64_t)> Callback();

  // The line drawn for these figures, `width` columns at most (for tests).
  static std::string Line(const std::string& path, uint64_t done, uint64_t total, int width);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  bool drawn_ = false;
};

// True when stderr is a terminal that can redraw a line (not TERM=dumb).
bool StderrIsInteractive();

}  // namespace stepdoctor::cli
