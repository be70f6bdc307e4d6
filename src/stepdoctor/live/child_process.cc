#include "stepdoctor/live/child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

extern char** environ;

namespace stepdoctor::live {
namespace {

std::atomic<pid_t> g_forward_pid{-1};  // a pid, or minus a process group id
std::atomic<int> g_last_signal{0};

void Forward(int sig, siginfo_t* info, void*) {
  g_last_signal.store(sig);
  pid_t p = g_forward_pid.load();
  // Ctrl-C at a terminal (si_code SI_KERNEL) already reached a child that shares our process
  // group: sending it again would interrupt its clean-up. Forward only signals sent to
  // stepdoctor alone (kill, timeout, a scheduler), or anything to a group of its own.
  if (info && info->si_code == SI_KERNEL && p > 0) return;
  if (p != -1 && p != 0) ::kill(p, sig);  // async-signal-safe
}

void InstallForwarding(pid_t target) {
  if (g_forward_pid.load() == -1) g_last_signal.store(0);  // handlers newly installed
  g_forward_pid.store(target);
  struct sigaction sa {};
  if (target != -1) {
    sa.sa_sigaction = &Forward;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
  } else {
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
  }
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace

Result<int64_t> SpawnChild(const std::vector<std::string>& argv) { return SpawnChild(argv, SpawnOptions{}); }

Result<int64_t> SpawnChild(const std::vector<std::string>& argv, const SpawnOptions& opts) {
  if (argv.empty()) return Result<int64_t>(ErrorCode::kInvalidArgument, "no command to run");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Everything the child needs is built before fork: between fork and exec only
  // async-signal-safe calls.
  std::map<std::string, std::string> env_map;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env_map[std::string(*e, size_t(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : opts.env) env_map[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : opts.cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &cpus);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Result<int64_t>(ErrorCode::kIoError, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (opts.own_process_group) ::setpgid(0, 0);
    if (!opts.cpus.empty()) ::sched_setaffinity(0, sizeof cpus, &cpus);
    if (opts.stdin_null) {
      int fd = ::open("/dev/null", O_RDONLY);
      if (fd >= 0) ::dup2(fd, 0);
    }
    if (opts.output_fd >= 0) {
      ::dup2(opts.output_fd, 1);
      ::dup2(opts.output_fd, 2);
    }
    ::execvpe(args[0], args.data(), envp.data());
    // Only async-signal-safe calls between fork and _exit.
    const char* why = std::strerror(errno);
    const char* parts[] = {"stepdoctor: cannot run ", args[0], ": ", why, "\n"};
    for (const char* p : parts) (void)!::write(2, p, std::strlen(p));
    ::_exit(127);
  }
  return int64_t(pid);
}

void ForwardSignalsTo(int64_t pid) { InstallForwarding(pid > 0 ? pid_t(pid) : -1); }

void ForwardSignalsToGroup(int64_t pgid) { InstallForwarding(pgid > 1 ? -pid_t(pgid) : -1); }

int LastForwardedSignal() { return g_last_signal.load(); }

bool ChildExited(int64_t pid) {
  siginfo_t info{};
  int rc = ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  if (rc < 0) return errno == ECHILD;  // not ours or already reaped: treat as gone
  return info.si_pid == pid;
}

int ReapChild(int64_t pid) {
  int status = 0;
  while (::waitpid(pid_t(pid), &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace stepdoctor::live
