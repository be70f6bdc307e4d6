// stepdoctor watch PID [--duration 60s]: samples a running job's process tree read-only (no
// ptrace, no signals) until it exits, the duration is up or Ctrl-C, then prints the diagnosis.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "stepdoctor/live/live_session.h"

namespace stepdoctor::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnInterrupt(int) { g_stop.store(true); }

struct WatchArgs {
  int64_t pid = 0;
  std::string duration = "60s";
  std::string interval = "1s";
  std::string out;
  std::string format = "text";
  int width = 100;
  bool no_gpu = false;
};

}  // namespace

std::function<int()> SetupWatch(CLI::App& sub) {
  auto a = std::make_shared<WatchArgs>();
  sub.add_option("pid", a->pid, "the training job's main process id")->required();
  sub.add_option("--duration", a->duration, "how long to watch (60s, 10m, ...); Ctrl-C stops early");
  sub.add_option("--interval", a->interval, "time between samples (1s, 500ms, ...)");
  sub.add_option("--out", a->out, "samples file to write (default: stepdoctor-samples-DATE-TIME.jsonl here)");
  sub.add_option("-f,--format", a->format, "report format (text, json, ...)");
  sub.add_option("--width", a->width, "text width in columns");
  sub.add_flag("--no-gpu", a->no_gpu, "do not load NVML (no GPU samples)");
  return [a]() -> int {
    auto interval = live::ParseDurationNs(a->interval);
    auto duration = live::ParseDurationNs(a->duration);
    if (!interval.ok() || !duration.ok()) {
      PrintError(!interval.ok() ? "--interval " + interval.message() : "--duration " + duration.message());
      return kExitBadInput;
    }
    if (a->pid <= 0 || ::access(("/proc/" + std::to_string(a->pid) + "/stat").c_str(), R_OK) != 0) {
      PrintError("no process " + std::to_string(a->pid));
      return kExitBadInput;
    }
    live::LiveSessionOptions so;
    so.interval_ns = *interval;
    so.duration_ns = *duration;
    so.out_path = a->out.empty() ? DefaultSamplesPath() : a->out;
    so.gpus = !a->no_gpu;
    so.stop = &g_stop;
    so.note = [](const std::string& line) { std::fprintf(stderr, "stepdoctor: %s\n", line.c_str()); };
    const bool tty = ::isatty(STDERR_FILENO);
    if (tty)
      so.status = [](const std::string& line) {
        std::fprintf(stderr, "\r\033[K[stepdoctor] %s", line.c_str());
        std::fflush(stderr);
      };
    struct sigaction sa {};
    sa.sa_handler = &OnInterrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM}) ::sigaction(sig, &sa, nullptr);
    auto session = live::RunLiveSession(a->pid, so);
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!session.ok()) {
      PrintError(session.message());
      return kExitBadInput;
    }
    std::fprintf(stderr, "stepdoctor: %lld samples in %s\n", static_cast<long long>(session->samples),
                 so.out_path.c_str());
    return DiagnoseLiveSamples({so.out_path}, a->format, a->width);
  };
}

}  // namespace stepdoctor::cli
