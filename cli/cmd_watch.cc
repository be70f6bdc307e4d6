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
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnInterrupt(int) { g_stop.store(true); }

struct WatchArgs {
  int64_t pid = 0;
  std::string duration = "60s";
  LiveCliOptions live;
};

}  // namespace

std::function<int()> SetupWatch(CLI::App& sub) {
  auto a = std::make_shared<WatchArgs>();
  sub.add_option("pid", a->pid, "the training job's main process id")->required();
  sub.add_option("--duration", a->duration, "how long to watch (60s, 10m, ...); Ctrl-C stops early");
  AddLiveCliOptions(sub, &a->live);
  return [a]() -> int {
    live::LiveSessionOptions so;
    if (!MakeLiveSessionOptions(a->live, &so)) return kExitBadInput;
    auto duration = live::ParseDurationNs(a->duration);
    if (!duration.ok()) {
      PrintError("--duration " + duration.message());
      return kExitBadInput;
    }
    if (a->pid <= 0 || ::access(("/proc/" + std::to_string(a->pid) + "/stat").c_str(), R_OK) != 0) {
      PrintError("no process " + std::to_string(a->pid));
      return kExitBadInput;
    }
    std::unique_ptr<live::SamplesWriter> writer = CreateSamplesFile(a->live);
    if (!writer) return kExitBadInput;
    const std::string samples_path = writer->path();
    so.duration_ns = *duration;
    so.stop = &g_stop;
    struct sigaction sa {};
    sa.sa_handler = &OnInterrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM}) ::sigaction(sig, &sa, nullptr);
    live::LiveSessionResult session = live::RunLiveSession(a->pid, *writer, so);
    writer.reset();  // closed before it is read back
    ClearLiveStatus(so);
    PrintInfo(std::to_string(session.samples) + " samples in " + samples_path);
    DiagnoseOutput out;
    out.format = a->live.format;
    out.width = a->live.width;
    return DiagnosePaths({samples_path}, out) ? kExitOk : kExitBadInput;
  };
}

}  // namespace stepdoctor::cli
