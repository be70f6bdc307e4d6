#include "stepdoctor/tune/process_trial_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <atomic>
#include <set>
#include <thread>

#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/live/sample.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::tune {
namespace {

namespace fs = std::filesystem;

// After the job's leader exits, how long the rest of its group may keep the output open before
// it is killed (loader workers the job did not stop).
constexpr int64_t kOrphanGraceNs = 200'000'000;
constexpr int kPollMs = 20;

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.insert(it->path().string());
  return out;
}

int ShellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string Seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", double(ns) / 1e9);
  return buf;
}

// Lines end at '\n' or '\r' (progress bars redraw with '\r').
void FeedLines(std::string& pending, const char* data, size_t n, int64_t t_ns, LineMeter& meter) {
  pending.append(data, n);
  size_t start = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i] != '\n' && pending[i] != '\r') continue;
    meter.Feed(pending.substr(start, i - start), t_ns);
    start = i + 1;
  }
  pending.erase(0, start);
  if (pending.size() > (1 << 16)) pending.erase(0, pending.size() - (1 << 16));  // a line without end
}

}  // namespace

std::string SubstituteScratch(const std::string& text, const std::string& scratch) {
  return ReplaceAll(text, kScratchToken, scratch);
}

ProcessTrialRunner::~ProcessTrialRunner() {
  if (temp_root_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_root_, ec);
}

std::string ProcessTrialRunner::TempRoot(std::string* why) {
  if (!temp_root_.empty()) return temp_root_;
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string tmpl = (base / "stepdoctor-tune-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    *why = tmpl.substr(0, tmpl.size() - 6) + "...: cannot make a temporary folder: " + std::strerror(errno);
    return "";
  }
  return temp_root_ = tmpl;
}

TrialRun ProcessTrialRunner::Run(const TrialSpec& spec_in, int64_t limit_ns) {
  TrialRun run;
  const int64_t t_start = live::MonotonicNowNs();
  const int index = ++runs_;
  TrialSpec spec = spec_in;
  std::string logdir = metric_.logdir, profile_dir = o_.profile_dir, scratch;
  if (!o_.scratch.empty() || spec.profile) {
    std::string why;
    std::string root = TempRoot(&why);
    if (root.empty()) {
      run.failure = why;
      return run;
    }
    if (!o_.scratch.empty()) {
      // The run's own copy of the folder: nothing one run leaves behind is seen by the next.
      scratch = root + "/run-" + std::to_string(index);
      std::error_code ec;
      fs::copy(o_.scratch, scratch, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
      if (ec) {
        run.failure = "--scratch " + o_.scratch + ": cannot copy it to " + scratch + ": " + ec.message();
        fs::remove_all(scratch, ec);
        run.wall_ns = live::MonotonicNowNs() - t_start;
        return run;
      }
      for (auto& a : spec.argv) a = SubstituteScratch(a, scratch);
      for (auto& [k, v] : spec.env) v = SubstituteScratch(v, scratch);
      spec.env.emplace_back(kScratchEnv, scratch);
      logdir = SubstituteScratch(logdir, scratch);
      profile_dir = SubstituteScratch(profile_dir, scratch);
      // The copy's time is the run's: what is left of its limit is the job's.
      limit_ns -= live::MonotonicNowNs() - t_start;
      if (limit_ns <= 0) {
        run.failure = "--scratch " + o_.scratch + ": copying it took the run's whole time limit";
        fs::remove_all(scratch, ec);
        run.wall_ns = live::MonotonicNowNs() - t_start;
        return run;
      }
    }
  }
  run = RunJob(spec, limit_ns, logdir, profile_dir, index);
  if (!scratch.empty() && !spec.profile) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
  }
  run.wall_ns = live::MonotonicNowNs() - t_start;
  return run;
}

TrialRun ProcessTrialRunner::RunJob(const TrialSpec& spec, int64_t limit_ns, const std::string& logdir,
                                    const std::string& profile_dir, int index) {
  TrialRun run;
  LineMeter meter(metric_);
  std::set<std::string> before, traces_before;
  if (metric_.source == MetricSource::kLogdir) before = FilesUnder(logdir);
  if (spec.profile && !profile_dir.empty()) traces_before = FilesUnder(profile_dir);

  // A profiled run's samples file exists before the job starts (live_session.h).
  std::unique_ptr<live::SamplesWriter> samples;
  if (spec.profile) {
    const std::string path = temp_root_ + "/profile-run-" + std::to_string(index) + ".jsonl";
    auto w = live::SamplesWriter::Create(path, live::SamplesPathMode::kExact);
    if (w.ok()) samples = std::move(*w);
    else run.profile_note = "no live samples: " + w.message();
  }

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    run.failure = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  live::SpawnOptions so;
  so.env = spec.env;
  // Python's output through a pipe is block-buffered: lines would arrive late and in bursts.
  bool python_buffering_set = std::getenv("PYTHONUNBUFFERED") != nullptr;
  for (const auto& [k, v] : spec.env) python_buffering_set |= k == "PYTHONUNBUFFERED";
  if (!python_buffering_set) so.env.emplace_back("PYTHONUNBUFFERED", "1");
  so.cpus = spec.cpus;
  so.own_process_group = true;
  so.output_fd = fds[1];
  so.stdin_null = true;
  const int64_t t0 = live::MonotonicNowNs();
  auto child = live::SpawnChild(spec.argv, so);
  ::close(fds[1]);
  if (!child.ok()) {
    ::close(fds[0]);
    run.failure = child.message();
    return run;
  }
  const pid_t pid = pid_t(*child);
  live::ForwardSignalsToGroup(pid);
  meter.Start(t0);
  // The profiled run's tree sampled beside the loop below, until the job is gone.
  std::atomic<bool> stop_sampling{false};
  std::thread sampler;
  if (samples) {
    sampler = std::thread([&, pid] {
      live::LiveSessionOptions so;
      so.interval_ns = o_.profile_interval_ns;
      so.command = spec.argv;
      so.gpus = o_.gpus;
      so.stop = &stop_sampling;
      live::RunLiveSession(pid, *samples, so);
    });
  }

  enum class Phase { kRunning, kTerm, kKill } phase = Phase::kRunning;
  bool exited = false, eof = false, timed_out = false;
  int64_t exited_at = 0, term_at = 0;
  std::string pending;
  char buf[8192];
  for (;;) {
    const int64_t now = live::MonotonicNowNs();
    int status = 0;
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      exited_at = now;
      run.exit_code = ShellStatus(status);
    }
    if (exited && eof) break;
    if (exited && phase != Phase::kKill && now - exited_at > kOrphanGraceNs) {
      ::kill(-pid, SIGKILL);  // the leader is gone: nothing of the trial outlives it
      phase = Phase::kKill;
    }
    if (phase == Phase::kRunning && !exited) {
      const bool interrupted = live::LastForwardedSignal() != 0;
      timed_out = now - t0 >= limit_ns;
      if (interrupted || timed_out || meter.Enough()) {
        run.interrupted = interrupted;
        run.stopped = true;
        ::kill(-pid, SIGTERM);
        phase = Phase::kTerm;
        term_at = now;
      }
    } else if (phase == Phase::kTerm && now - term_at >= o_.kill_grace_ns) {
      ::kill(-pid, SIGKILL);
      phase = Phase::kKill;
    }
    if (eof) {
      ::usleep(kPollMs * 1000);
      continue;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) FeedLines(pending, buf, size_t(n), live::MonotonicNowNs(), meter);
    else if (n == 0 || errno != EINTR) eof = true;
  }
  ::kill(-pid, SIGKILL);  // anything of the group that closed its output and lives on
  ::close(fds[0]);
  if (sampler.joinable()) {
    stop_sampling = true;
    sampler.join();
    const std::string path = samples->path();
    samples.reset();  // closed before it is read back
    run.profile_inputs.push_back(path);
  }
  if (spec.profile && !profile_dir.empty()) {
    int fresh = 0;
    for (const auto& f : FilesUnder(profile_dir))
      if (!traces_before.count(f)) ++fresh, run.profile_inputs.push_back(f);
    if (fresh == 0)
      run.profile_note += std::string(run.profile_note.empty() ? "" : "; ") + "the run wrote no new files under " +
                          profile_dir + ": the diagnosis is from its live samples alone";
  }
  if (!pending.empty()) meter.Feed(pending, live::MonotonicNowNs());
  run.wall_ns = live::MonotonicNowNs() - t0;
  run.check = meter.Check();

  std::string why;
  std::optional<double> tp;
  if (metric_.source == MetricSource::kLogdir) {
    std::vector<std::string> fresh;
    for (const auto& f : FilesUnder(logdir))
      if (!before.count(f)) fresh.push_back(f);
    if (fresh.empty()) {
      why = "no new event files in " + logdir;
    } else if (auto imported = ImportPaths(fresh); !imported.ok()) {
      why = imported.message();
    } else {
      tp = ScalarsStepRate(imported->trace.scalars, metric_, &why);
    }
  } else {
    tp = meter.Throughput(&why);
    run.steps = meter.MeasuredSteps();
  }
  if (tp) {
    run.measured = true;
    run.throughput = *tp;
  }
  const std::string last = meter.LastLine().substr(0, 160);
  if (run.interrupted) run.failure = "interrupted";
  else if (!run.stopped && run.exit_code != 0)
    run.failure = "exited with " + std::to_string(run.exit_code) + (last.empty() ? "" : ": " + last);
  else if (!tp)
    run.failure = (timed_out ? "stopped at its time limit (" + Seconds(limit_ns) + "): " : std::string()) + why;
  return run;
}

}  // namespace stepdoctor::tune
