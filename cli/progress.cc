#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace stepdoctor::cli {
namespace {

constexpr auto kDelay = std::chrono::seconds(1);             // draw nothing for inputs read faster than this

// STEPDOCTOR_PROGRESS_DELAY_MS overrides kDelay (tests draw at once).
std::chrono::milliseconds Delay() {
  if (const char* env = std::getenv("STEPDOCTOR_PROGRESS_DELAY_MS")) return std::chrono::milliseconds(std::atoi(env));
  return kDelay;
}
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);  // at most ten redraws a second

std::string Megabytes(uint64_t bytes) { return fmt::format("{:.1f}", bytes / 1e6); }

int TerminalWidth(std::FILE* out) {
  winsize ws{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

bool StderrIsInteractive() {
  if (!::isatty(STDERR_FILENO)) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::strcmp(term, "dumb") == 0);
}

ProgressBar::ProgressBar(bool enabled, std::FILE* out) : enabled_(enabled), out_(out), start_(Clock::now()) {}

std::string ProgressBar::Line(const std::string& path, uint64_t done, uint64_t total, int width) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  std::string tail;
  std::string bar;
  if (total > 0) {
    double frac = std::min(1.0, static_cast<double>(done) / total);
    tail = fmt::format(" {:3.0f}%  {}/{} MB", 100 * frac, Megabytes(done), Megabytes(total));
    int cells = std::clamp(width / 4, 10, 30);
    int full = static_cast<int>(frac * cells);
    bar = " [" + std::string(full, '#') + std::string(cells - full, '.') + "]";
  } else {
    tail = fmt::format("  {} MB", Megabytes(done));
  }
  std::string head = "reading ";
  int room = width - 1 - static_cast<int>(head.size() + bar.size() + tail.size());
  if (room < 8) return (head + name).substr(0, std::max(0, width - 1));
  if (static_cast<int>(name.size()) > room) name = "..." + name.substr(name.size() - (room - 3));
  return head + name + bar + tail;
}

void ProgressBar::Update(const std::string& path, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (now - start_ < Delay() || (drawn_ && now - last_draw_ < kRedrawEvery)) return;
  last_draw_ = now;
  drawn_ = true;
  std::string line = Line(path, done, total, TerminalWidth(out_));
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
}

void ProgressBar::Finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

std::function<void(const std::string&, uint64_t, uint64_t)> ProgressBar::Callback() {
  if (!enabled_) return nullptr;
  return [this](const std::string& path, uint64_t done, uint64_t total) { Update(path, done, total); };
}

}  // namespace stepdoctor::cli
