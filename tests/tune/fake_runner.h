// A trial runner with known answers: each setting's throughput is a base rate times a factor
// per environment value, with seeded noise; runs cost a fixed time. The search's tests read
// what it chose against what the factors say is best.
#pragma once

#include <map>
#include <random>
#include <string>
#include <utility>

#include "stepdoctor/tune/trial_runner.h"

namespace stepdoctor::tune::testing {

class FakeRunner : public TrialRunner {
 public:
  explicit FakeRunner(double noise_frac = 0.0, uint32_t seed = 1) : noise_(noise_frac), rng_(seed) {}

  double base = 100;
  std::map<std::pair<std::string, std::string>, double> factor;  // {NAME, value} -> throughput factor
  std::map<std::pair<std::string, std::string>, std::string> crash;  // {NAME, value} -> failure
  std::map<std::pair<std::string, std::string>, double> loss;        // {NAME, value} -> check value
  int64_t run_ns = 2'000'000'000;  // what each run costs; < 0: the whole limit and the grace
  int64_t grace_ns = 1'000'000'000;
  int calls = 0;
  int64_t spent_ns = 0;

  TrialRun Run(const TrialSpec& spec, int64_t limit_ns) override {
    ++calls;
    TrialRun r;
    r.wall_ns = run_ns < 0 ? limit_ns + grace_ns : std::min(run_ns, limit_ns + grace_ns);
    spent_ns += r.wall_ns;
    double tp = base, check = 2.0;
    for (const auto& kv : spec.env) {
      if (auto it = crash.find(kv); it != crash.end()) r.failure = it->second;
      if (auto it = factor.find(kv); it != factor.end()) tp *= it->second;
      if (auto it = loss.find(kv); it != loss.end()) check = it->second;
    }
    if (!r.failure.empty()) return r;
    std::uniform_real_distribution<double> u(-noise_, noise_);
    r.measured = true;
    r.throughput = tp * (1 + u(rng_));
    r.check = {2.3, 2.2, check};
    return r;
  }
  int64_t KillGraceNs() const override { return grace_ns; }

 private:
  double noise_;
  std::mt19937 rng_;
};

}  // namespace stepdoctor::tune::testing
