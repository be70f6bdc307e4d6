// Sampling overhead of `stepdoctor run`/`watch`: CPU time one sample costs (the machine's /proc
// files, a /proc scan for the process tree, every tree thread's schedstat, NVML where present),
// as a percentage of one core at a 1 s interval. Target: under 1%.
//
//   ninja -C build bench/live_sampler_bench && build/bench/live_sampler_bench [samples] [workers]
//
// Compares against nothing but the budget: the sampler runs beside the job for its whole life.
// The tree sampled is a shell with `workers` sleeping children, like a DataLoader's workers.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_sampler.h"

namespace {
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace stepdoctor::live;
  int samples = argc > 1 ? std::atoi(argv[1]) : 200;
  int workers = argc > 2 ? std::atoi(argv[2]) : 8;
  std::string script;
  for (int i = 0; i < workers; ++i) script += "sleep 10 & ";  // outlive the measurement, then exit on their own
  script += "wait";
  auto pid = SpawnChild({"sh", "-c", script});
  if (!pid.ok()) return 1;
  usleep(200000);  // let the workers start

  LiveSampler sampler(*pid);
  sampler.Take();  // priming; NVML load not counted
  size_t values = 0;
  double cpu0 = CpuSeconds();
  for (int i = 0; i < samples; ++i) {
    usleep(10000);  // some time between samples, so rates are non-trivial
    values += sampler.Take().values.size();
  }
  double per_sample_s = (CpuSeconds() - cpu0) / samples;
  long nproc = sysconf(_SC_NPROCESSORS_ONLN);
  std::printf("nproc %ld, tree of %d workers, NVML: %s\n", nproc, workers, sampler.nvml_status().c_str());
  std::printf("%d samples, %.1f values each\n", samples, double(values) / samples);
  std::printf("CPU per sample: %.3f ms -> %.3f%% of one core at a 1 s interval (%.2f%% at 100 ms)\n",
              per_sample_s * 1e3, per_sample_s * 100, per_sample_s * 1000);
  ::kill(pid_t(*pid), SIGTERM);
  ReapChild(*pid);
  return 0;
}
