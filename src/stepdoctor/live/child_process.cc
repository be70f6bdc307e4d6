#include "stepdoctor/live/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stepdoctor::live {
namespace {

std::atomic<pid_t> g_forward_pid{-1};

void Forward(int sig, siginfo_t* info, void*) {
  // Ctrl-C at a terminal (si_code SI_KERNEL) already reached the child, which shares our
  // process group: sending it again would interrupt its clean-up. Forward only signals sent to
  // stepdoctor alone (kill, timeout, a scheduler).
  if (info && info->si_code == SI_KERNEL) return;
  pid_t p = g_forward_pid.load();
  if (p > 0) ::kill(p, sig);  // async-signal-safe
}

}  // namespace

Result<int64_t> SpawnChild(const std::vector<std::string>& argv) {
  if (argv.empty()) return Result<int64_t>(ErrorCode::kInvalidArgument, "no command to run");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Result<int64_t>(ErrorCode::kIoError, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::execvp(args[0], args.data());
    // Only async-signal-safe calls between fork and _exit.
    const char* why = std::strerror(errno);
    const char* parts[] = {"stepdoctor: cannot run ", args[0], ": ", why, "\n"};
    for (const char* p : parts) (void)!::write(2, p, std::strlen(p));
    ::_exit(127);
  }
  return int64_t(pid);
}

void ForwardSignalsTo(int64_t pid) {
  g_forward_pid.store(pid_t(pid));
  struct sigaction sa {};
  if (pid > 0) {
    sa.sa_sigaction = &Forward;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
  } else {
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
  }
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

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
