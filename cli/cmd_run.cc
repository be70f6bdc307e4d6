// stepdoctor run [--interval 1s] [--logdir DIR] [--out FILE] -- CMD ARGS...: starts the
// command, samples its process tree, the machine and the GPUs until it exits, then prints the
// diagnosis. Returns the command's exit status (128 + signal when a signal killed it).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "commands.h"
#include "progress.h"
#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::cli {
namespace {

struct RunArgs {
  std::vector<std::string> command;
  std::string logdir;
  LiveCliOptions live;
};

// The status line redraws in place on a terminal; elsewhere nothing is printed.
void StatusLine(const std::string& line) {
  std::fprintf(stderr, "\r\033[K[stepdoctor] %s", line.c_str());
  std::fflush(stderr);
}
void ClearStatusLine() { std::fprintf(stderr, "\r\033[K"); }

}  // namespace

std::string DefaultSamplesPath() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "stepdoctor-samples-%Y%m%d-%H%M%S.jsonl", &tm);
  return buf;
}

void AddLiveCliOptions(CLI::App& sub, LiveCliOptions* o) {
  sub.add_option("--interval", o->interval, "time between samples (1s, 500ms, ...)");
  sub.add_option("--out", o->out, "samples file to write (default: stepdoctor-samples-DATE-TIME.jsonl here)");
  sub.add_option("-f,--format", o->format, "report format: " + JoinNames(RendererNames()));
  sub.add_option("--width", o->width, "text width in columns");
  sub.add_flag("--no-gpu", o->no_gpu, "do not load NVML (no GPU samples)");
}

bool MakeLiveSessionOptions(const LiveCliOptions& o, live::LiveSessionOptions* so) {
  auto interval = live::ParseDurationNs(o.interval);
  if (!interval.ok()) {
    PrintError("--interval " + interval.message());
    return false;
  }
  if (!FindRenderer(o.format)) {
    PrintError("--format " + o.format + ": unknown format");
    return false;
  }
  so->interval_ns = *interval;
  so->out_path = o.out.empty() ? DefaultSamplesPath() : o.out;
  so->gpus = !o.no_gpu;
  so->note = [](const std::string& line) { PrintInfo(line); };
  if (StderrIsInteractive() && !Quiet()) so->status = &StatusLine;
  return true;
}

bool CheckSamplesWritable(const std::string& path) {
  errno = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "a")) {
    std::fclose(f);
    return true;
  }
  PrintError(path + ": cannot write the samples file: " + std::strerror(errno));
  return false;
}

void ClearLiveStatus(const live::LiveSessionOptions& so) {
  if (so.status) ClearStatusLine();
}

std::function<int()> SetupRun(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  sub.add_option("command", a->command, "the training command and its arguments, after --")->required();
  sub.add_option("--logdir", a->logdir, "a profile or TensorBoard logdir the job writes: diagnosed with the samples");
  AddLiveCliOptions(sub, &a->live);
  return [a]() -> int {
    live::LiveSessionOptions so;
    if (!MakeLiveSessionOptions(a->live, &so)) return kExitBadInput;
    so.command = a->command;

    // Check the samples file can be written before starting the job.
    if (!CheckSamplesWritable(so.out_path)) return kExitBadInput;
    auto child = live::SpawnChild(a->command);
    if (!child.ok()) {
      PrintError(child.message());
      return kExitBadInput;
    }
    so.child_pid = *child;
    live::ForwardSignalsTo(*child);
    int exit_code = -1;
    auto session = live::RunLiveSession(*child, so, [&] { return exit_code = live::ReapChild(*child); });
    live::ForwardSignalsTo(-1);
    ClearLiveStatus(so);
    if (!session.ok()) {
      PrintError(session.message());
      return exit_code >= 0 ? exit_code : live::ReapChild(*child);
    }
    PrintInfo(std::to_string(session->samples) + " samples in " + so.out_path + "; command exited with " +
              std::to_string(exit_code));
    std::vector<std::string> inputs{so.out_path};
    if (!a->logdir.empty()) {
      if (::access(a->logdir.c_str(), R_OK) == 0) inputs.push_back(a->logdir);
      else PrintError("--logdir " + a->logdir + ": not found after the run; diagnosing the samples alone");
    }
    // The job's status is the command's result; a diagnosis that fails is reported, not returned.
    DiagnoseOutput out;
    out.format = a->live.format;
    out.width = a->live.width;
    out.fall_back_to_first = true;  // the samples alone, when the logdir beside them is unusable
    if (!DiagnosePaths(inputs, out))
      PrintError("no diagnosis of " + so.out_path + "; the exit status is the command's (" + std::to_string(exit_code) + ")");
    return exit_code;
  };
}

}  // namespace stepdoctor::cli
