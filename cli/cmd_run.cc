// stepdoctor run [--interval 1s] [--logdir DIR] [--out FILE] -- CMD ARGS...: starts the
// command, samples its process tree, the machine and the GPUs until it exits, then prints the
// diagnosis. Returns the command's exit status (128 + signal when a signal killed it).
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "progress.h"
#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/live/samples_path.h"
#include "stepdoctor/live/samples_writer.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor::cli {
namespace {

struct RunArgs {
  std::vector<std::string> command;
  std::string logdir;
  LiveCliOptions live;
  DataProbeCli data;
};

// The status line redraws in place on a terminal; elsewhere nothing is printed.
void StatusLine(const std::string& line) {
  std::fprintf(stderr, "\r\033[K[stepdoctor] %s", line.c_str());
  std::fflush(stderr);
}
void ClearStatusLine() { std::fprintf(stderr, "\r\033[K"); }

}  // namespace

void AddLiveCliOptions(CLI::App& sub, LiveCliOptions* o) {
  sub.add_option("--interval", o->interval, "time between samples (1s, 500ms, ...)");
  sub.add_option("--out", o->out,
                 "samples file to create; never overwritten (default: stepdoctor-samples-DATE-TIME-HOST[-rankN]-pidPID.jsonl here)");
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
  so->rank = live::RankFromEnvironment();
  so->gpus = !o.no_gpu;
  so->note = [](const std::string& line) { PrintInfo(line); };
  if (StderrIsInteractive() && !Quiet()) so->status = &StatusLine;
  return true;
}

std::unique_ptr<live::SamplesWriter> CreateSamplesFile(const LiveCliOptions& o) {
  const bool named = !o.out.empty();
  const std::string path = named ? o.out : live::DefaultSamplesNameNow();
  auto w = live::SamplesWriter::Create(path, named ? live::SamplesPathMode::kExact : live::SamplesPathMode::kFirstFree);
  if (w.ok()) return std::move(*w);
  // The message names the path first ("PATH: REASON"): keep that order.
  const std::string& m = w.message();
  size_t colon = m.find(": ");
  PrintError(colon == std::string::npos ? path + ": cannot write the samples file: " + m
                                        : m.substr(0, colon) + ": cannot write the samples file: " + m.substr(colon + 2));
  return nullptr;
}

void ClearLiveStatus(const live::LiveSessionOptions& so) {
  if (so.status) ClearStatusLine();
}

std::function<int()> SetupRun(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  sub.add_option("command", a->command, "the training command and its arguments, after --")->required();
  sub.add_option("--logdir", a->logdir, "a profile or TensorBoard logdir the job writes: diagnosed with the samples");
  AddLiveCliOptions(sub, &a->live);
  AddDataProbeOptions(sub, &a->data);
  return [a]() -> int {
    if (!CheckDataProbeOptions(a->data)) return kExitBadInput;  // before the job runs
    live::LiveSessionOptions so;
    if (!MakeLiveSessionOptions(a->live, &so)) return kExitBadInput;
    so.command = a->command;

    // The samples file exists before the job starts: one that cannot be written costs no run.
    std::unique_ptr<live::SamplesWriter> writer = CreateSamplesFile(a->live);
    if (!writer) return kExitBadInput;
    const std::string samples_path = writer->path();
    auto child = live::SpawnChild(a->command);
    if (!child.ok()) {
      PrintError(child.message());
      return kExitBadInput;
    }
    so.child_pid = *child;
    live::ForwardSignalsTo(*child);
    int exit_code = -1;
    live::LiveSessionResult session =
        live::RunLiveSession(*child, *writer, so, [&] { return exit_code = live::ReapChild(*child); });
    writer.reset();  // closed before it is read back
    live::ForwardSignalsTo(-1);
    ClearLiveStatus(so);
    PrintInfo(std::to_string(session.samples) + " samples in " + samples_path + "; command exited with " +
              std::to_string(exit_code));
    std::vector<std::string> inputs{samples_path};
    if (!a->logdir.empty()) {
      if (::access(a->logdir.c_str(), R_OK) == 0) inputs.push_back(a->logdir);
      else PrintError("--logdir " + a->logdir + ": not found after the run; diagnosing the samples alone");
    }
    // The job's status is the command's result; a diagnosis that fails is reported, not returned.
    DiagnoseOutput out;
    out.format = a->live.format;
    out.width = a->live.width;
    out.fall_back_to_first = true;  // the samples alone, when the logdir beside them is unusable
    out.data = a->data;
    if (!DiagnosePaths(inputs, out))
      PrintError("no diagnosis of " + samples_path + "; the exit status is the command's (" + std::to_string(exit_code) + ")");
    return exit_code;
  };
}

}  // namespace stepdoctor::cli
